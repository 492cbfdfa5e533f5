// `npm run bench`: every benchmark, ours and @mastra/core 1.59.0 side by side in one process,
// printed as Markdown tables (the README's tables come from this output).
import { printTable } from './util.mjs';
import * as toolSearch from './tool-search.mjs';
import * as toolCallFilter from './tool-call-filter.mjs';
import * as skillSearch from './skill-search.mjs';
import * as importTime from './import-time.mjs';
import * as storesProcessor from './stores-processor.mjs';

const quick = process.argv.includes('--quick');
console.log(`node ${process.version}, ${new Date().toISOString()}${quick ? ' (quick)' : ''}`);

printTable('ToolSearchProcessor', await toolSearch.run({ quick }));

const filterRows = await toolCallFilter.run({ quiet: true, ...(quick ? { sizes: [1_000] } : {}) });
printTable('ToolCallFilter (median per call)', filterRows);
console.log('\nWhere ToolCallFilter time goes (mean per call): reading JS objects / Rust core / building output');
for (const r of filterRows) console.log(`- ${r.name}: ${r.read_js_ms} / ${r.core_ms} / ${r.build_output_ms} ms`);

printTable('SkillSearchProcessor', await skillSearch.run());

printTable('Import time (fresh process each, median of 7)', await importTime.run());

// What users pay: model calls, bytes and solved tasks with a real Agent and an oracle model.
const agentSteps = await import('./agent-steps.mjs');
console.log('\n### Agent steps with an oracle model (bench/agent-steps.mjs)');
agentSteps.printTables(await agentSteps.run({ taskCount: quick ? 60 : 300 }));
await (await import('./event-loop.mjs')).report({ quick });
// What learning from use costs a step at 10,000 tools with 100,000 learned examples.
{
  const learnCost = await import('./learn-cost.mjs');
  learnCost.printLearnCost(await learnCost.run({ quick }));
}

// storage: redisStore(client) needs a Redis-compatible server (the system's, else valkey-server from PyPI).
if (storesProcessor.hasRedisServer()) {
  storesProcessor.printStoresTable(await storesProcessor.run({ quick }));
  const embeddingCache = await import('./embedding-cache.mjs');
  embeddingCache.printEmbeddingCacheTable(await embeddingCache.run({ quick }));
} else console.log('\n(storage: redisStore benchmark skipped: no Redis-compatible server could be had, see above)');
