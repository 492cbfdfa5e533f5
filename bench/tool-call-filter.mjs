// Side-by-side benchmark: @mastra/core@1.59.0's ToolCallFilter vs ours, same process, same inputs.
// Run `npm run build` first (release .node). `node bench/tool-call-filter.mjs` prints a table.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

import { ToolCallFilter as ReferenceFilter } from '@mastra/core/processors';

const require = createRequire(import.meta.url);
const { ToolCallFilter } = require('../index.js');
const { __toolCallFilterProfile: profile } = require('../js/tool-call-filter.js');

const TOOLS = ['weather', 'search', 'calculator'];

/** A history of `size` messages; every third one carries a tool call and its result. */
function history(size) {
  const messages = [];
  for (let i = 0; i < size; i++) {
    const createdAt = new Date(1_700_000_000_000 + i);
    if (i % 3 === 2) {
      const toolName = TOOLS[i % TOOLS.length];
      const toolCallId = `call-${i}`;
      const invocation = { state: 'result', toolCallId, toolName, args: { q: `query ${i}` }, result: { items: [i, i + 1], raw: 'payload' } };
      messages.push({
        id: `m${i}`,
        role: 'assistant',
        createdAt,
        content: {
          format: 2,
          parts: [
            { type: 'step-start' },
            { type: 'tool-invocation', toolInvocation: invocation, providerMetadata: { mastra: { modelOutput: { type: 'text', value: `${toolName} summary ${i}` } } } },
            { type: 'text', text: `Answer ${i}` },
          ],
          content: `Answer ${i}`,
          toolInvocations: [invocation],
        },
      });
    } else {
      const role = i % 3 === 0 ? 'user' : 'assistant';
      messages.push({ id: `m${i}`, role, createdAt, content: { format: 2, parts: [{ type: 'text', text: `Message ${i}` }], content: `Message ${i}` } });
    }
  }
  return messages;
}

function stubList(all, response) {
  return { get: { all: { db: () => all }, response: { db: () => response } } };
}

const scenarios = [
  { name: 'processInput default (exclude all)', options: {}, step: false },
  { name: "processInput exclude ['search'] + preserveModelOutput", options: { exclude: ['search'], preserveModelOutput: true }, step: false },
  { name: 'processInput preserveModelOutput', options: { preserveModelOutput: true }, step: false },
  { name: 'processInputStep filterAfterToolSteps: 2', options: { filterAfterToolSteps: 2 }, step: true },
  { name: "processInputStep filterAfterToolSteps: 1 + exclude ['weather']", options: { filterAfterToolSteps: 1, exclude: ['weather'] }, step: true },
];

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function timeOnce(filter, scenario, list) {
  const started = performance.now();
  if (scenario.step) {
    // A fresh state each time: one step of a loop whose response holds the last 30 messages.
    await filter.processInputStep({ messageList: list, state: {} });
  } else {
    await filter.processInput({ messages: [], messageList: list });
  }
  return performance.now() - started;
}

export async function run({ sizes = [1_000, 10_000], quiet = false } = {}) {
  const rows = [];
  for (const size of sizes) {
    const messages = history(size);
    const list = stubList(messages, messages.slice(-30));
    const rounds = size >= 10_000 ? 60 : 300;
    for (const scenario of scenarios) {
      const reference = new ReferenceFilter(scenario.options);
      const ours = new ToolCallFilter(scenario.options);
      for (let i = 0; i < Math.min(rounds, 50); i++) {
        await timeOnce(reference, scenario, list);
        await timeOnce(ours, scenario, list);
      }
      const referenceTimes = [];
      const ourTimes = [];
      profile.encodeMs = profile.nativeMs = profile.buildMs = profile.calls = 0;
      for (let i = 0; i < rounds; i++) {
        // Alternate the order so neither side always runs on a warmer cache.
        if (i % 2) {
          referenceTimes.push(await timeOnce(reference, scenario, list));
          profile.enabled = true;
          ourTimes.push(await timeOnce(ours, scenario, list));
          profile.enabled = false;
        } else {
          profile.enabled = true;
          ourTimes.push(await timeOnce(ours, scenario, list));
          profile.enabled = false;
          referenceTimes.push(await timeOnce(reference, scenario, list));
        }
      }
      const reference_ms = median(referenceTimes);
      const native_ms = median(ourTimes);
      const calls = Math.max(profile.calls, 1);
      rows.push({
        name: `${scenario.name} [${size.toLocaleString('en-US')} msgs]`,
        reference_ms: Number(reference_ms.toFixed(3)),
        native_ms: Number(native_ms.toFixed(3)),
        ratio: Number((reference_ms / native_ms).toFixed(2)),
        // Where our time goes (means over the measured calls).
        read_js_ms: Number((profile.encodeMs / calls).toFixed(3)),
        core_ms: Number((profile.nativeMs / calls).toFixed(3)),
        build_output_ms: Number((profile.buildMs / calls).toFixed(3)),
      });
    }
  }
  if (!quiet) console.table(rows);
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run();
}
