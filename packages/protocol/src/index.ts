export * from './closest.js';
export * from './defaults.js';
export * from './errors.js';
export * from './home.js';
export * from './keys-file.js';
export * from './process.js';
export * from './regular-file.js';
export * from './wire.js';
export { VERSION } from './version.js';
