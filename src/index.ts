/** Library entry: the normalized session model. The engine is exported separately as `cachecost/engine`. */
export * from './session/model.js';
export { CachecostError, type CachecostErrorCode } from './session/errors.js';
