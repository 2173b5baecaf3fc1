// Preload for the no-network test: any attempt to open a socket (TCP, TLS, UDP, HTTP, fetch,
// DNS lookups) throws, so a command that reaches for the network fails loudly.
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';

const refuse = (what) => () => {
  throw new Error(`network access refused by the test preload: ${what}`);
};
net.Socket.prototype.connect = refuse('net.Socket.connect');
net.connect = refuse('net.connect');
net.createConnection = refuse('net.createConnection');
dgram.createSocket = refuse('dgram.createSocket');
dns.lookup = refuse('dns.lookup');
dns.promises.lookup = refuse('dns.promises.lookup');
globalThis.fetch = refuse('fetch');
globalThis.WebSocket = refuse('WebSocket');
