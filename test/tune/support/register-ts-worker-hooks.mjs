// `--import` this in a worker's execArgv to run TypeScript sources (see ts-worker-hooks.mjs).
import { register } from 'node:module';

register(new URL('./ts-worker-hooks.mjs', import.meta.url));
