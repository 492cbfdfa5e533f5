// ESM entry: re-exports the CommonJS build so both module systems share one native instance.
import pkg from './index.js';

export const { ToolSearchProcessor, ToolCallFilter, SkillSearchProcessor } = pkg;
export default pkg;
