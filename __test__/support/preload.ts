import { createRequire } from 'node:module';

// Shared by the preload specs: the small catalog they search, built with a given createTool and z
// (the repository's or a matrix host's), and what the preload system message starts with.
export const PRELOAD_HEADER = "These tools were loaded for the user's request and can be called directly now, without search_tools or load_tool:";

// (the child-process fixture reads the same list)
const DEFS: Array<[string, string]> = createRequire(__filename)('../fixtures/preload-defs.cjs').preloadDefs;

/** The five tools; `onRun` hears each executed tool's id. */
export function preloadTools(createTool: any, z: any, onRun: (id: string) => void = () => {}) {
  return Object.fromEntries(
    DEFS.map(([id, description]) => [id, createTool({ id, description, inputSchema: z.object({}).passthrough(), execute: async () => (onRun(id), { ok: id }) })]),
  );
}

/** The system messages of a recorded prompt, as text. */
export function systemTexts(prompt: any[]): string[] {
  return prompt.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}
