#!/usr/bin/env node
// Records a BFCL-style tool-retrieval set into data/bfcl/ from the Berkeley Function Calling
// Leaderboard's own data, as published in the PyPI package `bfcl-eval` (Apache-2.0).
//
// BFCL gives each request the function(s) a model may call and the one it should call. Pooled
// over four categories (simple_python, multiple, live_simple, live_multiple), every function
// becomes a tool of ONE catalog and every request asks it for its ground-truth function: a
// retrieval set whose tools are what people write as function-calling tools (math helpers, web
// APIs, home automation, ...), unlike MetaTool's plugins and the MCP servers' tool families.
//
// - a tool's id is the function's name with every character outside [A-Za-z0-9_-] as '_' (as
//   function-calling APIs require; `math.factorial` -> `math_factorial`); a name that several
//   requests define with different descriptions keeps the one most of them use (first on a tie);
// - a request is the last user message of its first turn; `lang` is 'zh' or 'ko' when it is
//   written in that script, else 'en';
// - split: within each category, in file order, even lines 'dev' (tuning), odd lines 'test'.
//
//   node scripts/record-bfcl.mjs    downloads the pinned wheel with python3's pip, writes data/bfcl/
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'data', 'bfcl');
export const PACKAGE = 'bfcl-eval';
export const VERSION = '2026.3.23';
export const CATEGORIES = ['simple_python', 'multiple', 'live_simple', 'live_multiple'];

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.error?.message}`);
  return r.stdout;
}

/** The package's data files, as { relative path: text }, read from the wheel with python3's zipfile. */
function wheelData(dir) {
  run('python3', ['-m', 'pip', 'download', `${PACKAGE}==${VERSION}`, '--no-deps', '--quiet', '-d', dir]);
  const wheel = readdirSync(dir).find((f) => f.endsWith('.whl'));
  if (!wheel) throw new Error(`no wheel of ${PACKAGE} ${VERSION} in ${dir}`);
  const wanted = CATEGORIES.flatMap((c) => [`bfcl_eval/data/BFCL_v4_${c}.json`, `bfcl_eval/data/possible_answer/BFCL_v4_${c}.json`]);
  const py = 'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nprint(json.dumps({n: z.read(n).decode("utf-8") for n in sys.argv[2:]}))';
  return JSON.parse(run('python3', ['-c', py, join(dir, wheel), ...wanted]));
}

const jsonLines = (text) => text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
export const toolId = (name) => name.replace(/[^A-Za-z0-9_-]/g, '_');

function langOf(text) {
  if (/[\uac00-\ud7af]/.test(text)) return 'ko';
  if (/[\u3040-\u30ff]/.test(text)) return 'ja';
  if (/[\u4e00-\u9fff]/.test(text)) return 'zh';
  return 'en';
}

const TYPE_NAMES = { dict: 'object', float: 'number', tuple: 'array', list: 'array', any: undefined };

/** BFCL's parameter schema as JSON Schema (its Python type names mapped; what JSON Schema lacks, dropped). */
function jsonSchemaOf(node) {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && typeof value === 'string') {
      // ('any' is JSON Schema's absence of a type)
      const mapped = Object.hasOwn(TYPE_NAMES, value) ? TYPE_NAMES[value] : value;
      if (mapped !== undefined) out.type = mapped;
    } else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonSchemaOf(v)]));
    } else out[key] = jsonSchemaOf(value);
  }
  return out;
}

export function buildSet(files) {
  const variants = new Map(); // id -> Map(description -> { count, fn, first })
  const queries = [];
  let order = 0;
  for (const category of CATEGORIES) {
    const questions = jsonLines(files[`bfcl_eval/data/BFCL_v4_${category}.json`]);
    const answers = new Map(jsonLines(files[`bfcl_eval/data/possible_answer/BFCL_v4_${category}.json`]).map((a) => [a.id, a]));
    questions.forEach((q, line) => {
      for (const fn of q.function) {
        const id = toolId(fn.name);
        if (!variants.has(id)) variants.set(id, new Map());
        const seen = variants.get(id);
        const v = seen.get(fn.description) ?? { count: 0, fn, first: order++ };
        v.count += 1;
        seen.set(fn.description, v);
      }
      const users = q.question[0].filter((m) => m.role === 'user');
      const query = String(users[users.length - 1]?.content ?? '').trim();
      const relevant = [...new Set((answers.get(q.id)?.ground_truth ?? []).flatMap((call) => Object.keys(call)).map(toolId))];
      if (!query || relevant.length === 0) return;
      queries.push({ id: q.id, category, lang: langOf(query), query, relevant, split: line % 2 === 0 ? 'dev' : 'test' });
    });
  }
  const tools = [...variants.entries()].map(([id, seen]) => {
    const best = [...seen.values()].sort((a, b) => b.count - a.count || a.first - b.first)[0];
    return { id, name: best.fn.name, description: best.fn.description, inputSchema: jsonSchemaOf(best.fn.parameters ?? { type: 'dict', properties: {} }), order: best.first };
  });
  tools.sort((a, b) => a.order - b.order);
  return { tools: tools.map(({ order, ...t }) => t), queries };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), 'record-bfcl-'));
  try {
    const { tools, queries } = buildSet(wheelData(dir));
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(join(OUT_DIR, 'tools.jsonl'), tools.map((t) => JSON.stringify(t)).join('\n') + '\n');
    writeFileSync(join(OUT_DIR, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
    const count = (pred) => queries.filter(pred).length;
    console.log(`data/bfcl: ${tools.length} tools, ${queries.length} requests (dev ${count((q) => q.split === 'dev')}, test ${count((q) => q.split === 'test')}; ${['en', 'zh', 'ja', 'ko'].map((l) => `${l} ${count((q) => q.lang === l)}`).join(', ')})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
