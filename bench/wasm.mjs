// The WebAssembly build against the native one (issue 28): the same work in two child processes,
// one loading the native addon and one with NAPI_RS_FORCE_WASI=error (after `npm run build:wasm`).
// Per mode: construct + first step at 10,000 realistic tools and search_tools p50 over 500
// MetaTool queries (after 200 warm-up searches), plus what the reference takes in this process.
//
//   node bench/wasm.mjs
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageList } from '@mastra/core/agent';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor as Native } from '../index.js';
import { constructAndFirstStepMs, metatoolQueries, realisticTools } from './tool-search-realistic.mjs';
import { hybridModelOption, median, printTable } from './util.mjs';

const MODES = ['compatible', 'enhanced', ...(hybridModelOption() ? ['hybrid'] : [])];

async function measure(P, mode) {
  const tools = realisticTools(10_000);
  const search = mode === 'compatible' ? {} : { mode, ...(mode === 'hybrid' ? hybridModelOption() : {}) };
  const construct = await constructAndFirstStepMs(P, tools, 3, P === Reference ? {} : { search });
  const processor = new P({ tools, ...(P === Reference ? {} : { search }) });
  const requestContext = new RequestContext();
  const { tools: step } = await processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 'w', resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 });
  const queries = metatoolQueries();
  for (let i = 0; i < 200; i++) await step.search_tools.execute({ query: queries[(i * 37) % queries.length] }, {});
  const samples = [];
  for (let i = 0; i < (P === Reference ? 60 : 500); i++) {
    const t0 = performance.now();
    await step.search_tools.execute({ query: queries[(i * 101 + 7) % queries.length] }, {});
    samples.push(performance.now() - t0);
  }
  processor.dispose?.();
  return { construct, search: median(samples) };
}

if (process.argv[2] === '--child') {
  const out = {};
  for (const mode of MODES) out[mode] = await measure(Native, mode);
  console.log(JSON.stringify(out));
} else {
  if (!existsSync(new URL('../mastra-native-processors.wasm32-wasi.wasm', import.meta.url))) throw new Error('no WebAssembly build here: npm run build:wasm first');
  const child = (env) => {
    const r = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', fileURLToPath(import.meta.url), '--child'], { encoding: 'utf8', env: { ...process.env, ...env } });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').pop());
  };
  const native = child({});
  const wasm = child({ NAPI_RS_FORCE_WASI: 'error' });
  const reference = await measure(Reference, 'compatible');
  const rows = [];
  for (const mode of MODES) {
    rows.push({ name: `construct + first step, 10,000 realistic tools, '${mode}': native vs WebAssembly`, reference_ms: native[mode].construct, native_ms: wasm[mode].construct, ratio: native[mode].construct / wasm[mode].construct });
    rows.push({ name: `search_tools p50, 10,000 realistic tools, '${mode}': native vs WebAssembly`, reference_ms: native[mode].search, native_ms: wasm[mode].search, ratio: native[mode].search / wasm[mode].search });
    rows.push({ name: `search_tools p50, '${mode}': @mastra/core vs WebAssembly`, reference_ms: reference.search, native_ms: wasm[mode].search, ratio: reference.search / wasm[mode].search });
  }
  console.log(`WebAssembly vs native (node ${process.version}); columns: first / second / first ÷ second`);
  printTable('WebAssembly build', rows);
}
