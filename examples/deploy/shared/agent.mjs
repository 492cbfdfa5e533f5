// The agent every deploy recipe (and test-artifacts/agent-smoke.mjs) runs: a real Mastra Agent with a scripted model (no network) that
// searches 101 tools, loads the weather tool and calls it, through ToolSearchProcessor. Returns
// what the model was offered at each step, its answer and which native binary this process loaded.
import { readFileSync } from 'node:fs';
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { ToolSearchProcessor } from 'mastra-native-processors';

/** 100 look-alike CRUD tools and the weather tool the request needs. */
export function catalog() {
  const tools = {};
  for (const service of ['github', 'jira', 'slack', 'stripe', 'notion'])
    for (const action of ['create', 'update', 'delete', 'list'])
      for (const object of ['issue', 'ticket', 'message', 'invoice', 'page']) {
        const id = `${service}_${action}_${object}`;
        tools[id] = createTool({ id, description: `${action} a ${object} in ${service}`, execute: async () => ({ ok: true }) });
      }
  tools.get_weather = createTool({
    id: 'get_weather',
    description: 'Get the current weather and temperature for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, temperatureC: 18, conditions: 'light rain' }),
  });
  return tools;
}

/** A model that searches, loads the first hit and calls it, recording the tools offered per step in `offered`. */
export function scriptedModel(offered) {
  const lastToolResult = (prompt) => {
    for (let i = prompt.length - 1; i >= 0; i--) {
      const part = prompt[i].role === 'tool' && prompt[i].content.find((p) => p.type === 'tool-result');
      if (part) return { name: part.toolName, output: part.output?.value ?? part.output };
    }
  };
  return {
    specificationVersion: 'v2',
    provider: 'smoke-test',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate({ tools: stepTools = [], prompt }) {
      offered.push(stepTools.map((t) => t.name).sort());
      const last = lastToolResult(prompt);
      let call;
      if (!last) call = { toolName: 'search_tools', input: { query: 'weather in a city' } };
      else if (last.name === 'search_tools') call = { toolName: 'load_tool', input: { toolName: last.output.results[0].name } };
      else if (last.name === 'load_tool') call = { toolName: last.output.toolName, input: { city: 'Lisbon' } };
      const n = offered.length;
      return {
        content: call
          ? [{ type: 'tool-call', toolCallId: `call-${n}`, toolName: call.toolName, input: JSON.stringify(call.input) }]
          : [{ type: 'text', text: `${last.output.city}: ${last.output.temperatureC} C, ${last.output.conditions}` }],
        warnings: [],
        finishReason: call ? 'tool-calls' : 'stop',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        response: { id: `r-${n}`, modelId: 'scripted', timestamp: new Date() },
      };
    },
    async doStream() {
      throw new Error('generate() only');
    },
  };
}

/** The .node files mapped into this process (Linux), else []. */
function loadedAddons() {
  try {
    const paths = readFileSync('/proc/self/maps', 'utf8').split('\n').map((line) => line.split(/\s+/).slice(5).join(' '));
    return [...new Set(paths.filter((p) => p.endsWith('.node')))];
  } catch {
    return [];
  }
}

export async function runAgent() {
  const offered = [];
  const toolSearch = new ToolSearchProcessor({ tools: catalog(), search: { topK: 3 } });
  const agent = new Agent({ id: 'deploy-agent', name: 'Deploy agent', instructions: 'Find the right tool, load it, and use it.', model: scriptedModel(offered), inputProcessors: [toolSearch] });
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', 'deploy-thread');
  const result = await agent.generate('What is the weather in Lisbon?', { maxSteps: 6, requestContext });
  toolSearch.dispose();
  return { text: result.text, offered, addons: loadedAddons() };
}
