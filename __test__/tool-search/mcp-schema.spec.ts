// Tools whose input schema is a plain JSON Schema, as MCP servers describe their tools:
// @mastra/core's createTool wraps it (Standard JSON Schema, `~standard.jsonSchema`), and its
// parameter names and descriptions still reach enhanced search.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createTool } from '@mastra/core/tools';
import { Native, step } from '../support/tool-search';

const require = createRequire(import.meta.url);
const { extractParamFields } = require('../../js/schema-fields.js');

const execute = async () => ({});
const recorded = readFileSync(new URL('../../data/mcp/tools.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

describe('MCP tools with a JSON Schema input', () => {
  it('reads the parameters of recorded MCP tools through createTool', () => {
    const withParams = recorded.filter((t) => Object.keys(t.inputSchema?.properties ?? {}).length > 0).slice(0, 25);
    expect(withParams.length).toBe(25);
    for (const t of withParams) {
      const tool = createTool({ id: `${t.server}_${t.name}`, description: t.description, inputSchema: t.inputSchema, execute });
      const expected = Object.entries(t.inputSchema.properties).map(([name, p]: [string, any]) => [name, typeof p?.description === 'string' ? p.description : '']);
      expect(extractParamFields(tool), t.name).toEqual(expected);
    }
  });

  it('a schema whose Standard JSON Schema conversion throws gives no parameters', () => {
    const tool = { inputSchema: { '~standard': { version: 1, vendor: 'x', jsonSchema: { input: () => { throw new Error('no'); } } } } };
    expect(extractParamFields(tool)).toEqual([]);
  });

  // (enhanced: hybrid's semantic side can find it by the description alone)
  for (const mode of ['enhanced'] as const) {
    it(`search.mode '${mode}' finds a tool by a word only its JSON Schema parameters hold`, async () => {
      const tools = {
        pages_create: createTool({
          id: 'pages_create',
          description: 'Create a page',
          inputSchema: { type: 'object', properties: { parent: { type: 'string', description: 'Workspace folder that holds the page' }, title: { type: 'string' } } },
          execute,
        }),
        pages_delete: createTool({ id: 'pages_delete', description: 'Delete a page', inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, execute }),
        weather_forecast: createTool({ id: 'weather_forecast', description: 'Weather forecast for a city', execute }),
      };
      const processor = new Native({ tools, search: { mode } });
      const results = (await (await step(processor)).search('workspace folder')).results;
      expect(results[0]?.name).toBe('pages_create');
    });
  }
});
