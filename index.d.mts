// Types for the ESM entry (index.mjs): the same declarations as the CommonJS entry's.
export * from './index.js';
