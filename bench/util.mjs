// Small helpers shared by the benchmarks.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The rows of data/<set>/<file> (JSON lines). */
export function readJsonl(set, file) {
  return readFileSync(join(repo, 'data', set, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/**
 * The model for search.mode 'hybrid': `{ model }` with MNP_MODEL or the repository's copy, `{}` when
 * the model package is installed (the processor finds it), or undefined when there is none.
 */
export function hybridModelOption() {
  if (process.env.MNP_MODEL) return { model: process.env.MNP_MODEL };
  try {
    createRequire(import.meta.url).resolve('mastra-native-processors-model-multilingual');
    return {};
  } catch {
    const copy = join(repo, 'packages', 'model-multilingual');
    return existsSync(join(copy, 'model.bin')) ? { model: copy } : undefined;
  }
}

/** Milliseconds one (possibly async) call takes. */
export async function time(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export function median(xs) {
  return percentile(xs, 50);
}

export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

/** Collects garbage until the heap settles (V8 frees pages over a few cycles; needs --expose-gc). */
export async function settle() {
  for (let i = 0; i < 4; i++) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deterministic PRNG (mulberry32). */
export function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fmt(x, unit = 'ms') {
  if (!Number.isFinite(x)) return '—';
  if (unit === 'MB') return `${x.toFixed(1)} MB`;
  if (x >= 100) return `${x.toFixed(0)} ms`;
  if (x >= 1) return `${x.toFixed(2)} ms`;
  return `${(x * 1000).toFixed(1)} µs`;
}

/** Prints rows `{ name, reference_ms, native_ms, ratio }` as a Markdown table. */
export function printTable(title, rows) {
  console.log(`\n### ${title}\n`);
  console.log('| benchmark | @mastra/core 1.59.0 | mastra-native-processors | speed-up |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows) {
    const ratio = Number.isFinite(r.ratio) ? `${r.ratio >= 10 ? r.ratio.toFixed(0) : r.ratio.toFixed(1)}×` : '—';
    console.log(`| ${r.name} | ${fmt(r.reference_ms, r.unit)} | ${fmt(r.native_ms, r.unit)} | ${ratio} |`);
  }
}

/**
 * data/mcp: the recorded tools of real MCP servers as one catalog, each keyed and named
 * `<server>_<tool>` as @mastra/mcp's MCPClient.listTools() keys them; `inputSchema` is the
 * server's JSON Schema.
 */
export function mcpCatalog() {
  return readJsonl('mcp', 'tools.jsonl').map((t) => ({ id: `${t.server}_${t.name}`, description: t.description, inputSchema: t.inputSchema, server: t.server }));
}

/** data/bfcl's tools (scripts/record-bfcl.mjs): `{ id, description, inputSchema }`. */
export function bfclCatalog() {
  return readJsonl('bfcl', 'tools.jsonl').map((t) => ({ id: t.id, description: t.description, inputSchema: t.inputSchema }));
}

/** data/bfcl's requests (`relevant` already in the catalog's ids). */
export function bfclQueries() {
  return readJsonl('bfcl', 'queries.jsonl');
}

/** data/mcp's requests, `relevant` in the catalog's `<server>_<tool>` names. */
export function mcpQueries() {
  return readJsonl('mcp', 'queries.jsonl').map((q) => ({ ...q, relevant: q.relevant.map((name) => `${q.server}_${name}`) }));
}
