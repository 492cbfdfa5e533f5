// How preload's confidence is fitted (issue 26). For every search mode, each request of a
// development half is searched as search_tools does (topK 5) over the whole catalog and over
// random sub-catalogs of 5, 15 and 50 tools: once over the part holding its relevant tool, and once
// over a part holding none (a request the catalog cannot serve: nothing should be preloaded), with
// small talk (data/smalltalk: greetings, thanks, chit-chat in five languages) searched likewise. Each
// of the top 3 hits becomes a row of features (js/preload.js) labelled relevant or not;
// a logistic regression per mode is fitted on the development rows and printed, ready to paste
// into js/preload.js. Then, on the test halves, built the same way, the rule preload
// applies (each of the top hits, best first, while its confidence ≥ t) is reported per threshold:
// requests with a preload, precision per preloaded tool, requests whose preloads hold a relevant
// tool. Thresholds are chosen on the development rows; test rows only report.
//
//   node bench/preload-calibration.mjs [--modes compatible,enhanced,hybrid] [--fit] [--dev-tables] [--sizes 5,15,50,full]
// (`--dev-tables` also prints the rule on each development set and size, with the fitted weights or,
// without --fit, the shipped ones: how a refit compares on dev)
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { ToolSearchProcessor } from '../index.js';
import { createRequire } from 'node:module';
import { hybridModelOption, mcpCatalog, mcpQueries, readJsonl } from './util.mjs';

const option = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
const modes = option('modes', 'compatible,enhanced,hybrid').split(',');
const sizes = option('sizes', '5,15,50,full').split(',');
const fit = process.argv.includes('--fit');
const TOP = 3;
const { confidenceFeatures } = createRequire(import.meta.url)('../js/preload.js');

/** Deterministic shuffle (mulberry32). */
function shuffled(xs, seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// What preload's search saw, as js/preload.js's confidencesOf hears it.
let seen;
const confidence = createRequire(import.meta.url)('../js/preload.js');
const confidencesOf = confidence.confidencesOf;
confidence.confidencesOf = (...args) => {
  seen = args;
  return confidencesOf(...args);
};

/** A processor preloading over `catalog` in `mode`; `search(query)` runs its first step. */
async function searcher(catalog, mode) {
  // (an MCP tool with its JSON Schema, as a client hands it over: its parameters are indexed)
  const tools = Object.fromEntries(catalog.map(({ id, description, inputSchema }) => [id, createTool({ id, description, ...(inputSchema ? { inputSchema } : {}), execute: async () => ({}) })]));
  const extra = mode === 'hybrid' ? hybridModelOption() ?? {} : {};
  // minConfidence 1: the confidences are computed, nothing is loaded.
  const processor = new ToolSearchProcessor({ tools, search: { topK: 5, ...(mode === 'compatible' ? {} : { mode }), ...extra }, preload: { minConfidence: 1 } });
  const requestContext = new RequestContext();
  const answers = new Map();
  return {
    size: catalog.length,
    search: async (query) => {
      // (preload remembers a text's ranking per catalog: a repeated request is not searched
      // again, so its first answer stands)
      if (answers.has(query)) return answers.get(query);
      seen = undefined;
      await processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 't', resourceId: 'r' }), requestContext, messages: [{ role: 'user', content: query }], stepNumber: 0 });
      const [, results, , , evidence] = seen ?? [undefined, [], undefined, undefined, undefined];
      answers.set(query, { results, evidence });
      return { results, evidence };
    },
    dispose: () => processor.dispose(),
  };
}

/**
 * Rows `{ x, y, request }` of one half over one catalog size, for one mode; `smalltalk` (messages
 * no tool serves) is searched too, over the whole catalog or one part each.
 */
async function collect(catalog, requests, mode, size, seed, smalltalk = []) {
  const rows = [];
  const add = ({ results, evidence }, query, relevant, n, request) => {
    const scores = results.map((r) => r.score);
    for (let rank = 0; rank < Math.min(TOP, results.length); rank++) {
      rows.push({ x: confidenceFeatures(mode, scores, rank, query, n, evidence, results.map((r) => r.name)), y: relevant.has(results[rank].name) ? 1 : 0, request, rank });
    }
    if (results.length === 0) rows.push({ x: null, y: 0, request, rank: -1 });
  };
  if (size === 'full') {
    const s = await searcher(catalog, mode);
    let request = 0;
    for (const { query, relevant } of requests) add(await s.search(query), query, new Set(relevant), s.size, `${size}:${request++}`);
    for (const { query, id } of smalltalk) add(await s.search(query), query, new Set(), s.size, `${size}:${id}:none`);
    s.dispose();
    return rows;
  }
  const n = Number(size);
  const order = shuffled(catalog, seed);
  const parts = [];
  for (let i = 0; i + n <= order.length; i += n) parts.push(order.slice(i, i + n));
  const partOf = new Map();
  parts.forEach((part, p) => part.forEach((t) => partOf.set(t.id, p)));
  // Requests grouped by the part each is searched in (its own, and the next one lacking its tools).
  const byPart = parts.map(() => []);
  requests.forEach(({ query, relevant }, r) => {
    const own = partOf.get(relevant[0]);
    if (own === undefined) return;
    byPart[own].push({ query, relevant, request: `${size}:${r}:own` });
    for (let k = 1; k < parts.length; k++) {
      const other = (own + k) % parts.length;
      if (!relevant.some((id) => partOf.get(id) === other)) {
        byPart[other].push({ query, relevant: [], request: `${size}:${r}:none` });
        break;
      }
    }
  });
  smalltalk.forEach(({ query, id }, k) => byPart[k % parts.length].push({ query, relevant: [], request: `${size}:${id}:none` }));
  for (let p = 0; p < parts.length; p++) {
    if (byPart[p].length === 0) continue;
    const s = await searcher(parts[p], mode);
    const ids = new Set(parts[p].map((t) => t.id));
    for (const { query, relevant, request } of byPart[p]) add(await s.search(query), query, new Set(relevant.filter((id) => ids.has(id))), s.size, request);
    s.dispose();
  }
  return rows;
}

/** L2-regularised logistic regression by Newton's method; returns weights (bias last). */
function logistic(rows, lambda = 1e-3, iterations = 25) {
  const data = rows.filter((r) => r.x);
  const d = data[0].x.length + 1;
  let w = new Array(d).fill(0);
  for (let it = 0; it < iterations; it++) {
    const grad = new Array(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array(d).fill(0));
    for (const { x, y } of data) {
      const v = [...x, 1];
      const z = v.reduce((s, xi, i) => s + xi * w[i], 0);
      const p = 1 / (1 + Math.exp(-z));
      for (let i = 0; i < d; i++) {
        grad[i] += (p - y) * v[i];
        for (let j = 0; j < d; j++) hess[i][j] += p * (1 - p) * v[i] * v[j];
      }
    }
    for (let i = 0; i < d; i++) {
      grad[i] = grad[i] / data.length + lambda * w[i];
      for (let j = 0; j < d; j++) hess[i][j] = hess[i][j] / data.length + (i === j ? lambda : 0);
    }
    const step = solve(hess, grad);
    w = w.map((wi, i) => wi - step[i]);
  }
  return w.map((x) => Math.round(x * 1e4) / 1e4);
}

function solve(a, b) {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** The preload rule per threshold over `rows` (grouped by request), with `weights`. */
function ruleTable(title, rows, weights, thresholds) {
  const byRequest = new Map();
  for (const r of rows) {
    if (!byRequest.has(r.request)) byRequest.set(r.request, []);
    byRequest.get(r.request).push(r);
  }
  const served = [...byRequest.keys()].filter((k) => !k.endsWith(':none')).length;
  console.log(`\n#### ${title} (${byRequest.size} searches, ${served} with a relevant tool in the catalog)\n`);
  console.log('| confidence ≥ | searches with a preload | tools per preload | precision per tool | served searches with a relevant preload | unserved searches with a preload |');
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const t of thresholds) {
    let withPreload = 0, tools = 0, right = 0, hit = 0, falseAlarm = 0;
    for (const [key, hits] of byRequest) {
      const chosen = [];
      for (const h of hits.filter((h) => h.x).sort((a, b) => a.rank - b.rank)) {
        if (confidence.preloadConfidence(weights, h.x) < t) break;
        chosen.push(h);
      }
      if (!chosen.length) continue;
      withPreload++;
      tools += chosen.length;
      right += chosen.filter((h) => h.y).length;
      if (chosen.some((h) => h.y)) hit++;
      if (key.endsWith(':none')) falseAlarm++;
    }
    const unserved = byRequest.size - served;
    console.log(`| ${t} | ${((100 * withPreload) / byRequest.size).toFixed(1)}% | ${withPreload ? (tools / withPreload).toFixed(2) : '—'} | ${tools ? (right / tools).toFixed(3) : '—'} | ${((100 * hit) / served).toFixed(1)}% | ${unserved ? ((100 * falseAlarm) / unserved).toFixed(1) + '%' : '—'} |`);
  }
}

const metatool = readJsonl('metatool', 'tools.jsonl');
const metaQueries = readJsonl('metatool', 'queries.jsonl');
const multi = readJsonl('multilingual', 'tools.jsonl');
const multiQueries = readJsonl('multilingual', 'queries.jsonl');
// Small talk (data/smalltalk, five languages), searched over both catalogs: nothing should load.
const smalltalk = readJsonl('smalltalk', 'queries.jsonl');
const mcp = mcpCatalog();
const mcpRequests = mcpQueries();
// MetaTool's halves are thinned (every 4th even / odd line) to keep this to a minute or two.
const halves = {
  dev: [
    ['MetaTool even lines', metatool, metaQueries.filter((_, i) => i % 8 === 0), smalltalk.filter((q) => q.split === 'dev')],
    ['multilingual dev split', multi, multiQueries.filter((q) => q.split === 'dev'), smalltalk.filter((q) => q.split === 'dev')],
    ['real MCP servers dev split', mcp, mcpRequests.filter((q) => q.split === 'dev'), smalltalk.filter((q) => q.split === 'dev')],
  ],
  test: [
    ['MetaTool odd lines', metatool, metaQueries.filter((_, i) => i % 8 === 1), smalltalk.filter((q) => q.split === 'test')],
    ['multilingual test split', multi, multiQueries.filter((q) => q.split === 'test'), smalltalk.filter((q) => q.split === 'test')],
    ['real MCP servers test split', mcp, mcpRequests.filter((q) => q.split === 'test'), smalltalk.filter((q) => q.split === 'test')],
  ],
};

console.log(`Preload confidence (node ${process.version}; sub-catalog sizes ${sizes.join(', ')})`);
const thresholds = [0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7];
for (const mode of modes) {
  if (mode === 'hybrid' && !hybridModelOption()) {
    console.log('\n(no hybrid model here: hybrid skipped)');
    continue;
  }
  let weights = confidence.PRELOAD_CONFIDENCE_MODELS[mode];
  if (fit || process.argv.includes('--dev-tables')) {
    const dev = [];
    const devOf = [];
    for (const [name, catalog, requests, chat] of halves.dev) {
      for (const size of sizes) {
        const rows = await collect(catalog, requests, mode, size, 7, chat);
        dev.push(...rows);
        devOf.push([`${name}, catalog ${size === 'full' ? `${catalog.length} tools` : `parts of ${size}`}`, rows]);
      }
    }
    if (fit) {
      weights = logistic(dev);
      console.log(`\n### ${mode}: fitted weights (dev rows: ${dev.length})\n\n    ${mode}: [${weights.join(', ')}],`);
    }
    ruleTable(`${mode}, development halves, all sizes`, dev, weights, thresholds);
    // (`--dev-tables`: each development set and size on its own, to compare features on dev)
    if (process.argv.includes('--dev-tables')) for (const [title, rows] of devOf) ruleTable(`${mode}, ${title} (development)`, rows, weights, thresholds);
  }
  for (const [name, catalog, requests, chat] of halves.test) {
    for (const size of sizes) {
      ruleTable(`${mode}, ${name}, catalog ${size === 'full' ? `${catalog.length} tools` : `parts of ${size}`}`, await collect(catalog, requests, mode, size, 11, chat), weights, thresholds);
    }
  }
}
