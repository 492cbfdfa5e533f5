// ESM entry. The processors are the CommonJS ones (so both module systems share one native
// instance and one set of per-thread state), bound to the `createTool` and `z` that `import`
// resolves: an ESM app loads Mastra's ESM build only, and our meta-tools are instances of the
// same `Tool` class as the app's own tools.
//
// The CommonJS modules are imported statically (Node gives their `module.exports` as the
// default export), not through `createRequire(import.meta.url)`: a bundler follows a static
// import and keeps the files together, while a `createRequire` path is resolved at run time
// against wherever the bundle ended up (esbuild, rollup and webpack output failed with
// "Cannot find module './index.js'").
import { createTool } from '@mastra/core/tools';
import { z } from 'zod/v4';
import cjs from './index.js';
import hostModules from './js/host-modules.js';

const bound = { createTool, z };

export const ToolSearchProcessor = hostModules.bindHostModules(cjs.ToolSearchProcessor, bound);
export const SkillSearchProcessor = hostModules.bindHostModules(cjs.SkillSearchProcessor, bound);
export const ToolCallFilter = cjs.ToolCallFilter;
// The stores hold no host modules: the CommonJS functions themselves.
export const redisStore = cjs.redisStore;
export const memoryStore = cjs.memoryStore;
export const redisEmbeddingCache = cjs.redisEmbeddingCache;
export const redisLearnStore = cjs.redisLearnStore;

export default { ToolSearchProcessor, SkillSearchProcessor, ToolCallFilter, redisStore, memoryStore, redisEmbeddingCache, redisLearnStore };
