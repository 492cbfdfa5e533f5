// A real MCP server behind @mastra/mcp's MCPClient, as most Mastra users get their catalogs: the
// knowledge-graph server (@modelcontextprotocol/server-memory) over stdio, its tools listed by the
// client (`memory_create_entities`, …) and handed to the processors unchanged. @mastra/mcp 1.10
// returns a tool's error as the call's result (`{ content, isError: true }`, later versions throw
// unless `onToolError: 'return'`), so this is also where learning meets a failure that returns.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { MCPClient } from '@mastra/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { scriptedModel, type ModelCall, type ScriptStep } from '../support/scripted-model';
import { Native as ToolSearchProcessor, Reference as HostToolSearchProcessor, step } from '../support/tool-search';

const SERVER = join(dirname(createRequire(__filename).resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');
const dir = mkdtempSync(join(tmpdir(), 'mnp-mcp-'));
let client: MCPClient;
let tools: Record<string, any>;

beforeAll(async () => {
  client = new MCPClient({ id: `mcp-spec-${Date.now()}`, servers: { memory: { command: process.execPath, args: [SERVER], env: { MEMORY_FILE_PATH: join(dir, 'graph.jsonl') } } } });
  tools = await client.listTools();
}, 60_000);

afterAll(async () => {
  await client?.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

async function turn(processor: any, text: string, script: ScriptStep[], thread: string) {
  const log: ModelCall[] = [];
  const agent = new Agent({ id: 'mcp', name: 'mcp', instructions: 'Help.', model: scriptedModel(script, log) as any, inputProcessors: [processor] });
  const requestContext = new RequestContext<any>();
  requestContext.set('mastra__threadId', thread);
  requestContext.set('mastra__resourceId', 'u1');
  const result = await agent.generate(text, { maxSteps: 5, requestContext });
  return { log, result };
}

/** The outputs of the run's calls of `toolName`. */
function outputsOf(result: any, toolName: string) {
  return result.steps.flatMap((s: any) => s.toolResults).filter((r: any) => (r.payload?.toolName ?? r.toolName) === toolName).map((r: any) => r.payload?.result ?? r.output ?? r.result);
}

describe('ToolSearchProcessor over a real MCP server (@mastra/mcp MCPClient)', () => {
  it('lists the server tools under their client ids; compatible search and load_tool answer as the host does', async () => {
    expect(Object.keys(tools)).toEqual(expect.arrayContaining(['memory_create_entities', 'memory_add_observations', 'memory_read_graph', 'memory_search_nodes']));
    const host = await step(new HostToolSearchProcessor({ tools }), { threadId: 'search' });
    const ours = await step(new ToolSearchProcessor({ tools }), { threadId: 'search' });
    for (const query of ['create entities', 'add observations to an entity', 'delete relations', 'read the whole knowledge graph', 'search nodes', 'memory']) {
      expect(await ours.search(query), query).toEqual(await host.search(query));
    }
    expect(await ours.load({ toolName: 'memory_open_nodes' })).toEqual(await host.load({ toolName: 'memory_open_nodes' }));
  });

  it('an agent loads and calls a real MCP tool; learning keeps the call that worked, not the MCP error, and preloads it next time', async () => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({ tools, search: { mode: 'enhanced' }, preload: { onPreload: (e: any) => events.push(e) }, learn: true });
    const REMEMBER = 'Remember that Alice Chen manages project Apollo';
    const REMEMBER_AGAIN = 'Remember that Carol Diaz manages project Zeus';
    // Zero-shot, the second request does not preload the tool (the control for the last step).
    const control = await step(new ToolSearchProcessor({ tools, search: { mode: 'enhanced' }, preload: true }), {
      threadId: 'control',
      messages: [{ role: 'user', content: { format: 2, parts: [{ type: 'text', text: REMEMBER_AGAIN }] } }],
    });
    expect(control.keys).not.toContain('memory_create_entities');

    const entity = (name: string, observation: string) => ({ entities: [{ name, entityType: 'person', observations: [observation] }] });
    const first = await turn(processor, REMEMBER, [
      { tool: 'load_tool', input: { toolName: 'memory_create_entities' } },
      { tool: 'memory_create_entities', input: entity('Alice Chen', 'manages project Apollo') },
      { text: 'noted' },
    ], 't1');
    expect(first.log[1].tools).toContain('memory_create_entities');
    // The server really holds it.
    expect(JSON.stringify(await tools.memory_open_nodes.execute({ names: ['Alice Chen'] }, {}))).toContain('manages project Apollo');

    // An observation for an entity the graph lacks: the server answers with an MCP error result.
    const failed = await turn(processor, 'Note that Bob Stone likes green tea', [
      { tool: 'load_tool', input: { toolName: 'memory_add_observations' } },
      { tool: 'memory_add_observations', input: { observations: [{ entityName: 'Bob Stone', contents: ['likes green tea'] }] } },
      { text: 'noted' },
    ], 't2');
    expect(outputsOf(failed.result, 'memory_add_observations')[0]).toMatchObject({ isError: true });
    expect(processor.getLearningStats()).toMatchObject({ examples: 1 });

    events.length = 0;
    const again = await turn(processor, REMEMBER_AGAIN, [{ tool: 'memory_create_entities', input: entity('Carol Diaz', 'manages project Zeus') }, { text: 'noted' }], 't3');
    expect(again.log[0].tools).toContain('memory_create_entities');
    expect(events[0].tools.find((t: any) => t.name === 'memory_create_entities')).toMatchObject({ learned: true });
    expect(JSON.stringify(await tools.memory_open_nodes.execute({ names: ['Carol Diaz'] }, {}))).toContain('manages project Zeus');
    processor.dispose();
  });
});
