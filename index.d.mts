// Types for the ESM entry (index.mjs); the same declarations as the CommonJS entry's.
export * from './js/tool-search.js';
export * from './js/tool-call-filter.js';
export * from './js/skill-search.js';
