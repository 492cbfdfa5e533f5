// ESM entry. The processors are the CommonJS ones (so both module systems share one native
// instance and one set of per-thread state), bound to the `createTool` and `z` that `import`
// resolves: an ESM app loads Mastra's ESM build only, and our meta-tools are instances of the
// same `Tool` class as the app's own tools.
import { createRequire } from 'node:module';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod/v4';

const require = createRequire(import.meta.url);
const cjs = require('./index.js');
const { bindHostModules } = require('./js/host-modules.js');

const hostModules = { createTool, z };

export const ToolSearchProcessor = bindHostModules(cjs.ToolSearchProcessor, hostModules);
export const SkillSearchProcessor = bindHostModules(cjs.SkillSearchProcessor, hostModules);
export const ToolCallFilter = cjs.ToolCallFilter;
// The stores hold no host modules: the CommonJS functions themselves.
export const redisStore = cjs.redisStore;
export const memoryStore = cjs.memoryStore;

export default { ToolSearchProcessor, SkillSearchProcessor, ToolCallFilter, redisStore, memoryStore };
