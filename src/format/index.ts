/** The low formatting layer: money, counts, wrapping and terminal options, used by every renderer. */
export * from './money.js';
export * from './number.js';
export * from './terminal.js';
export * from './wrap.js';
