/**
 * Word lists the content model composes from. They are deliberately broad (software nouns, verbs,
 * qualifiers, domains, packages, people) so that composed identifiers, paths and sentences rarely
 * repeat: the generated sessions must never look like repeated filler.
 */

export const NOUNS = [
  'account', 'adapter', 'address', 'alert', 'allocation', 'anchor', 'archive', 'artifact', 'asset', 'attempt',
  'audit', 'backlog', 'balance', 'barrier', 'batch', 'binding', 'blob', 'block', 'bookmark', 'boundary',
  'bucket', 'budget', 'buffer', 'bundle', 'cache', 'calendar', 'callback', 'candidate', 'capacity', 'cart',
  'catalog', 'channel', 'chapter', 'charge', 'checkpoint', 'chunk', 'cipher', 'claim', 'client', 'cluster',
  'column', 'command', 'comment', 'commit', 'config', 'connection', 'consumer', 'contract', 'counter', 'coupon',
  'cursor', 'customer', 'dashboard', 'dataset', 'deadline', 'decoder', 'delta', 'deployment', 'descriptor', 'device',
  'digest', 'dispatch', 'document', 'domain', 'draft', 'edge', 'embedding', 'encoder', 'endpoint', 'entry',
  'envelope', 'event', 'export', 'extract', 'feature', 'feed', 'field', 'filter', 'fixture', 'flag',
  'folder', 'footer', 'format', 'fragment', 'frame', 'gateway', 'grant', 'graph', 'group', 'handle',
  'handler', 'header', 'heartbeat', 'hint', 'histogram', 'hook', 'host', 'identity', 'image', 'import',
  'incident', 'index', 'invoice', 'issue', 'item', 'job', 'journal', 'key', 'label', 'layer',
  'layout', 'lease', 'ledger', 'limit', 'link', 'listener', 'loader', 'locale', 'lock', 'manifest',
  'mapping', 'marker', 'member', 'message', 'metric', 'migration', 'mirror', 'module', 'monitor', 'mutation',
  'namespace', 'node', 'notice', 'offset', 'option', 'order', 'origin', 'outbox', 'owner', 'package',
  'page', 'parcel', 'parser', 'partition', 'patch', 'payload', 'payment', 'peer', 'permission', 'pipeline',
  'placeholder', 'plan', 'plugin', 'policy', 'pool', 'portal', 'preview', 'price', 'probe', 'profile',
  'project', 'prompt', 'property', 'provider', 'proxy', 'query', 'queue', 'quota', 'range', 'rate',
  'reader', 'receipt', 'record', 'reducer', 'region', 'registry', 'release', 'replica', 'report', 'request',
  'reservation', 'resolver', 'resource', 'response', 'result', 'retry', 'revision', 'role', 'route', 'row',
  'rule', 'runner', 'sample', 'scanner', 'schedule', 'schema', 'scope', 'segment', 'selector', 'sender',
  'sequence', 'server', 'session', 'setting', 'shard', 'shipment', 'signal', 'signature', 'slot', 'snapshot',
  'source', 'span', 'spec', 'splitter', 'stage', 'statement', 'status', 'step', 'storage', 'stream',
  'subscriber', 'summary', 'supplier', 'switch', 'table', 'tag', 'target', 'task', 'template', 'tenant',
  'threshold', 'ticket', 'timeline', 'timer', 'token', 'topic', 'trace', 'tracker', 'transaction', 'transfer',
  'transform', 'trigger', 'upload', 'usage', 'user', 'validator', 'value', 'vendor', 'version', 'view',
  'voucher', 'wallet', 'warehouse', 'watcher', 'webhook', 'widget', 'window', 'worker', 'workspace', 'writer',
] as const;

export const VERBS = [
  'accept', 'acquire', 'adjust', 'aggregate', 'align', 'allocate', 'append', 'apply', 'approve', 'archive',
  'assert', 'assign', 'attach', 'audit', 'authorize', 'backfill', 'balance', 'batch', 'bind', 'build',
  'buffer', 'calculate', 'cancel', 'capture', 'check', 'claim', 'classify', 'clean', 'clear', 'clone',
  'close', 'coerce', 'collect', 'commit', 'compare', 'compile', 'compose', 'compress', 'compute', 'confirm',
  'connect', 'consume', 'convert', 'copy', 'count', 'create', 'debounce', 'decode', 'dedupe', 'defer',
  'delete', 'derive', 'describe', 'detach', 'detect', 'diff', 'dispatch', 'dispose', 'drain', 'emit',
  'enable', 'encode', 'enqueue', 'ensure', 'enrich', 'evaluate', 'evict', 'expand', 'expire', 'export',
  'extract', 'fetch', 'filter', 'finalize', 'find', 'flatten', 'flush', 'fold', 'format', 'freeze',
  'generate', 'group', 'guard', 'handle', 'hash', 'hydrate', 'ignore', 'import', 'index', 'infer',
  'init', 'inspect', 'install', 'invalidate', 'invoke', 'join', 'keep', 'label', 'launch', 'limit',
  'link', 'list', 'load', 'lock', 'log', 'lookup', 'map', 'mark', 'match', 'measure',
  'merge', 'migrate', 'mount', 'normalize', 'notify', 'open', 'order', 'pack', 'paginate', 'parse',
  'partition', 'patch', 'pause', 'persist', 'pick', 'plan', 'poll', 'prefetch', 'prepare', 'preview',
  'process', 'project', 'promote', 'prune', 'publish', 'purge', 'push', 'query', 'queue', 'rank',
  'read', 'rebuild', 'receive', 'reconcile', 'record', 'recover', 'reduce', 'refresh', 'register', 'reject',
  'release', 'reload', 'remove', 'rename', 'render', 'reorder', 'repair', 'replay', 'report', 'request',
  'reserve', 'reset', 'resolve', 'restore', 'resume', 'retry', 'return', 'revoke', 'rotate', 'route',
  'run', 'sample', 'sanitize', 'save', 'scan', 'schedule', 'score', 'seal', 'search', 'seed',
  'select', 'send', 'serialize', 'settle', 'shift', 'sign', 'skip', 'slice', 'snapshot', 'sort',
  'split', 'stage', 'start', 'stash', 'stop', 'store', 'stream', 'strip', 'submit', 'subscribe',
  'summarize', 'suspend', 'swap', 'sync', 'tag', 'throttle', 'tokenize', 'track', 'transform', 'translate',
  'trim', 'truncate', 'unlock', 'unpack', 'update', 'upgrade', 'upload', 'upsert', 'validate', 'verify',
  'walk', 'warm', 'watch', 'wrap', 'write', 'yield',
] as const;

export const ADJECTIVES = [
  'active', 'async', 'atomic', 'base', 'batched', 'bounded', 'broken', 'buffered', 'cached', 'canonical',
  'chunked', 'cold', 'compact', 'composite', 'concurrent', 'current', 'custom', 'daily', 'default', 'deferred',
  'deleted', 'dirty', 'draft', 'dry', 'durable', 'dynamic', 'early', 'effective', 'empty', 'encoded',
  'encrypted', 'expired', 'explicit', 'external', 'failed', 'fallback', 'final', 'first', 'flat', 'foreign',
  'frozen', 'full', 'global', 'grouped', 'hashed', 'hidden', 'hourly', 'idle', 'implicit', 'inactive',
  'incoming', 'initial', 'inline', 'internal', 'invalid', 'lagging', 'last', 'late', 'latest', 'lazy',
  'legacy', 'linked', 'live', 'local', 'locked', 'main', 'manual', 'merged', 'minimal', 'missing',
  'monthly', 'nested', 'next', 'normalized', 'offline', 'open', 'optional', 'orphaned', 'outgoing', 'paged',
  'paused', 'pending', 'pinned', 'primary', 'private', 'public', 'queued', 'raw', 'readonly', 'recent',
  'remote', 'resolved', 'retained', 'rolling', 'root', 'safe', 'scoped', 'sealed', 'secondary', 'shared',
  'signed', 'silent', 'single', 'soft', 'sorted', 'sparse', 'stale', 'static', 'strict', 'synced',
  'temporary', 'trusted', 'typed', 'unique', 'unsigned', 'upstream', 'valid', 'verified', 'virtual', 'warm',
  'weekly', 'weighted',
] as const;

/** Domain words used for package and app names. */
export const DOMAINS = [
  'billing', 'ingest', 'ledger', 'catalog', 'search', 'auth', 'notify', 'reporting', 'scheduler', 'storage',
  'checkout', 'inventory', 'payments', 'analytics', 'gateway', 'sync', 'exports', 'pricing', 'identity', 'audit',
  'telemetry', 'routing', 'docs-site', 'mailer', 'webhooks', 'ratelimit', 'feature-flags', 'importer', 'media', 'geo',
] as const;

export const APP_NAMES = ['web', 'api', 'worker', 'admin', 'cli', 'console', 'cron', 'edge', 'mobile-bff', 'studio'] as const;

export const FILE_ROLES = [
  'index', 'types', 'schema', 'client', 'server', 'store', 'queue', 'cache', 'config', 'errors',
  'parser', 'format', 'router', 'handlers', 'service', 'repository', 'mapper', 'validate', 'retry', 'metrics',
  'logger', 'session', 'tokens', 'limits', 'pagination', 'serializer', 'reducer', 'selectors', 'hooks', 'context',
] as const;

export const NPM_DEPS = [
  'zod', 'node:fs/promises', 'node:path', 'node:crypto', 'node:events', 'node:stream', 'date-fns', 'p-limit',
  'pino', 'undici', 'drizzle-orm', 'kysely', 'ioredis', 'fastify', 'hono', 'superjson', 'nanoid', 'yaml',
] as const;

export const PY_DEPS = [
  'json', 'logging', 'os', 'pathlib', 'dataclasses', 'datetime', 'typing', 'itertools', 'collections',
  'functools', 'asyncio', 'hashlib', 're', 'decimal', 'sqlalchemy', 'pydantic', 'httpx', 'click',
] as const;

export const TS_TYPES = [
  'string', 'number', 'boolean', 'Date', 'bigint', 'unknown', 'string[]', 'number[]', 'Record<string, number>',
  'ReadonlyArray<string>', 'Map<string, number>', 'Set<string>', 'Uint8Array', 'null | string',
] as const;

export const PY_TYPES = ['str', 'int', 'float', 'bool', 'bytes', 'dict[str, int]', 'list[str]', 'datetime', 'Decimal', 'Path', 'str | None'] as const;

export const ERROR_PHRASES = [
  'expected a non-empty {n}', 'cannot {v} a {a} {n}', 'unknown {n} id', '{n} is not initialized',
  'timed out waiting for {n}', 'duplicate {n} key', '{n} exceeds the configured limit', 'invalid {n} format',
  '{a} {n} rejected by {n2}', 'missing required field {f}', 'could not {v} {n}: connection reset',
  'unexpected end of {n} stream', '{n} version mismatch', 'refusing to {v} a {a} {n}',
] as const;

export const FIRST_NAMES = ['mara', 'jonas', 'priya', 'tomas', 'aiko', 'dev', 'lena', 'omar', 'sofia', 'kwame', 'ines', 'yuki'] as const;

export const CONNECTIVES = [
  'so', 'because', 'which means', 'and then', 'but', 'while', 'although', 'since', 'so that', 'once',
] as const;

/** Sentence openers for the assistant's running commentary. */
export const INTENT_OPENERS = [
  'Let me', "I'll", 'Next I will', 'Now let me', 'I want to', 'First, let me', 'To confirm that, I will',
  'Before changing anything, let me', 'Let me quickly', 'I need to',
] as const;

export const OBSERVATION_OPENERS = [
  'The problem is that', 'It looks like', 'This confirms that', 'Interesting:', 'So', 'Found it:',
  'The test output shows that', 'From the stack trace,', 'Reading the code,', 'The diff shows that',
  'As suspected,', 'Good news:', 'One thing stands out:', 'On closer inspection,',
] as const;

export const TASK_KINDS = ['bugfix', 'feature', 'refactor', 'tests', 'investigate', 'perf', 'docs', 'upgrade'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];
