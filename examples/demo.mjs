// Demo: a real Mastra Agent over a catalog of 1,000+ tools. The model (a small scripted
// stand-in for an LLM, so the demo runs offline) searches, loads the best match and uses it.
// Run: npm ci && npm run demo
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { RequestContext } from '@mastra/core/request-context';
import { z } from 'zod';
import { ToolSearchProcessor } from '../index.mjs';

const root = join(import.meta.dirname, '..');

// --- the catalog: 199 real plugin descriptions (MetaTool) + synthetic SaaS tools + one real tool
const metatool = readFileSync(join(root, 'data', 'metatool', 'tools.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const services = ['github', 'jira', 'slack', 'stripe', 'hubspot', 'notion', 'gmail', 'salesforce', 'zendesk', 'linear'];
const actions = ['create', 'update', 'delete', 'list', 'get', 'search', 'archive', 'export', 'assign'];
const objects = ['issue', 'ticket', 'message', 'invoice', 'contact', 'page', 'deal', 'comment', 'file', 'user'];

const tools = {};
for (const t of metatool) tools[t.id] = createTool({ id: t.id, description: t.description, execute: async () => ({ ok: true }) });
for (const s of services)
  for (const a of actions)
    for (const o of objects) {
      const id = `${s}_${a}_${o}`;
      tools[id] = createTool({ id, description: `${a[0].toUpperCase() + a.slice(1)} a ${o} in ${s}`, execute: async () => ({ ok: true }) });
    }
tools.get_weather = createTool({
  id: 'get_weather',
  description: 'Get the current weather and temperature for a city',
  inputSchema: z.object({ city: z.string().describe('City name') }),
  execute: async ({ city }) => ({ city, temperatureC: 18, conditions: 'light rain', source: 'demo data' }),
});
const toolCount = Object.keys(tools).length;

// --- a scripted model: reads the previous tool result from the prompt, like an LLM would
function lastToolResult(prompt) {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i];
    if (m.role === 'tool') {
      const part = m.content.find((p) => p.type === 'tool-result');
      return part ? { name: part.toolName, output: part.output?.value ?? part.output } : undefined;
    }
  }
}

const steps = [];
const model = {
  specificationVersion: 'v2',
  provider: 'demo',
  modelId: 'scripted-demo',
  supportedUrls: {},
  async doGenerate({ tools: offered = [], prompt }) {
    const last = lastToolResult(prompt);
    steps.push({ offered: offered.map((t) => t.name), last });
    let call;
    if (!last) call = { toolName: 'search_tools', input: { query: 'current weather in a city' } };
    else if (last.name === 'search_tools') call = { toolName: 'load_tool', input: { toolName: last.output.results[0].name } };
    else if (last.name === 'load_tool') call = { toolName: last.output.toolName, input: { city: 'Lisbon' } };
    const n = steps.length;
    const content = call
      ? [{ type: 'tool-call', toolCallId: `call-${n}`, toolName: call.toolName, input: JSON.stringify(call.input) }]
      : [{ type: 'text', text: `It is ${last.output.temperatureC}°C with ${last.output.conditions} in ${last.output.city}.` }];
    return {
      content,
      warnings: [],
      finishReason: call ? 'tool-calls' : 'stop',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      response: { id: `r-${n}`, modelId: 'scripted-demo', timestamp: new Date() },
    };
  },
  async doStream() {
    throw new Error('the demo uses generate()');
  },
};

// --- the processor and the agent
const t0 = performance.now();
const toolSearch = new ToolSearchProcessor({ tools, search: { topK: 5 } });
const buildMs = performance.now() - t0;

const agent = new Agent({
  id: 'demo-agent',
  name: 'Demo agent',
  instructions: 'Find the right tool, load it, and use it.',
  model,
  inputProcessors: [toolSearch],
});

console.log(`mastra-native-processors demo — ToolSearchProcessor over ${toolCount.toLocaleString()} tools`);
console.log(`index built in ${buildMs.toFixed(1)} ms\n`);

const requestContext = new RequestContext();
requestContext.set('mastra__threadId', 'demo-thread');
const result = await agent.generate('What is the weather in Lisbon right now?', { maxSteps: 6, requestContext });

// --- what happened, step by step
for (const [i, s] of steps.entries()) {
  console.log(`step ${i + 1}: the model was offered ${s.offered.length} tool definitions (${s.offered.join(', ')}) instead of all ${toolCount}`);
  if (!s.last) continue;
  if (s.last.name === 'search_tools') {
    console.log(`  search_tools → ${s.last.output.message}`);
    for (const r of s.last.output.results) console.log(`    ${r.score.toFixed(2).padStart(6)}  ${r.name} — ${r.description}`);
  } else if (s.last.name === 'load_tool') {
    console.log(`  load_tool → ${s.last.output.message}`);
  } else {
    console.log(`  ${s.last.name} → ${JSON.stringify(s.last.output)}`);
  }
}
console.log(`\nanswer: ${result.text}`);

// --- search latency on this catalog
const { tools: stepTools } = await toolSearch.processInputStep({
  tools: {},
  messageList: { addSystem() {} },
  requestContext,
  messages: [],
});
const queries = ['create a jira ticket', 'send slack message', 'stock prices', 'translate text', 'book a flight', 'weather'];
const samples = [];
for (let i = 0; i < 300; i++) {
  const t = performance.now();
  await stepTools.search_tools.execute({ query: queries[i % queries.length] }, {});
  samples.push(performance.now() - t);
}
samples.sort((a, b) => a - b);
console.log(`search_tools latency over ${toolCount} tools: p50 ${(samples[150] * 1000).toFixed(0)} µs, p95 ${(samples[285] * 1000).toFixed(0)} µs`);
toolSearch.dispose();
