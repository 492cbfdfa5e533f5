// The BFCL-style retrieval data (data/bfcl, scripts/record-bfcl.mjs) is what its README says:
// the documented fields, ids as function-calling APIs accept them, every label a recorded tool,
// the split rule per category, and the README's counts; the recording's pure part (ids, the
// description most requests use, schema type names, split) on a small hand-made input.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSet, CATEGORIES } from '../../scripts/record-bfcl.mjs';

const DATA_DIR = join(__dirname, '..', '..', 'data', 'bfcl');
const readJsonl = (file: string) =>
  readFileSync(join(DATA_DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
const tools: any[] = readJsonl('tools.jsonl');
const queries: any[] = readJsonl('queries.jsonl');
const readme = readFileSync(join(DATA_DIR, 'README.md'), 'utf8');

describe('data/bfcl', () => {
  it('tools: the documented fields, unique ids of [A-Za-z0-9_-], a description and an object schema each', () => {
    for (const t of tools) {
      expect(Object.keys(t)).toEqual(['id', 'name', 'description', 'inputSchema']);
      expect(t.id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(t.id).toBe(t.name.replace(/[^A-Za-z0-9_-]/g, '_'));
      expect(typeof t.description).toBe('string');
      expect(t.inputSchema.type).toBe('object');
    }
    expect(new Set(tools.map((t) => t.id)).size).toBe(tools.length);
  });

  it('requests: every label is a recorded tool; per category the lines alternate dev, test', () => {
    const ids = new Set(tools.map((t) => t.id));
    for (const q of queries) {
      expect(Object.keys(q)).toEqual(['id', 'category', 'lang', 'query', 'relevant', 'split']);
      expect(q.query.trim()).not.toBe('');
      expect(q.relevant.length).toBeGreaterThan(0);
      for (const r of q.relevant) expect(ids.has(r), `${q.id}: ${r}`).toBe(true);
    }
    for (const category of CATEGORIES) {
      const lines = queries.filter((q) => q.category === category);
      expect(lines.length).toBeGreaterThan(100);
      // (BFCL's ids carry the line number, `simple_python_12` or `live_simple_12-5-0`: even lines dev, odd test)
      for (const q of lines) expect(q.split, q.id).toBe(Number(/_(\d+)(?:-\d+)*$/.exec(q.id)![1]) % 2 === 0 ? 'dev' : 'test');
    }
  });

  it("the README's counts match the files", () => {
    expect(readme).toContain(`# BFCL-style tool retrieval: ${tools.length.toLocaleString('en')} function-calling tools, ${queries.length.toLocaleString('en')} requests`);
    for (const category of CATEGORIES) {
      const lines = queries.filter((q) => q.category === category);
      const dev = lines.filter((q) => q.split === 'dev').length;
      expect(readme).toContain(`| ${category} | ${lines.length} | ${dev} | ${lines.length - dev} |`);
    }
  });
});

describe('scripts/record-bfcl.mjs', () => {
  const fn = (name: string, description: string) => ({ name, description, parameters: { type: 'dict', properties: { x: { type: 'float' }, xs: { type: 'tuple' }, y: { type: 'any' } }, required: ['x'] } });
  const lines = (items: any[]) => items.map((x) => JSON.stringify(x)).join('\n');
  const question = (id: string, text: string, functions: any[]) => ({ id, question: [[{ role: 'system', content: 'Be brief.' }, { role: 'user', content: text }]], function: functions });
  const files: Record<string, string> = {};
  for (const category of CATEGORIES) {
    files[`bfcl_eval/data/BFCL_v4_${category}.json`] = '';
    files[`bfcl_eval/data/possible_answer/BFCL_v4_${category}.json`] = '';
  }
  files['bfcl_eval/data/BFCL_v4_simple_python.json'] = lines([
    question('simple_python_0', 'Factorial of 5', [fn('math.factorial', 'Factorial, first wording.')]),
    question('simple_python_1', '5 的阶乘', [fn('math.factorial', 'Factorial, common wording.'), fn('math.gcd', 'Greatest common divisor.')]),
    question('simple_python_2', '5 팩토리얼', [fn('math.factorial', 'Factorial, common wording.')]),
  ]);
  files['bfcl_eval/data/possible_answer/BFCL_v4_simple_python.json'] = lines([0, 1, 2].map((i) => ({ id: `simple_python_${i}`, ground_truth: [{ 'math.factorial': { number: [5] } }] })));
  const { tools: built, queries: asked } = buildSet(files);

  it('ids, the description most requests use, JSON Schema types, the last user message, language and split', () => {
    expect(built.map((t: any) => t.id)).toEqual(['math_factorial', 'math_gcd']);
    expect(built[0].description).toBe('Factorial, common wording.');
    expect(built[0].inputSchema).toEqual({ type: 'object', properties: { x: { type: 'number' }, xs: { type: 'array' }, y: {} }, required: ['x'] });
    expect(asked.map((q: any) => [q.query, q.lang, q.split, q.relevant])).toEqual([
      ['Factorial of 5', 'en', 'dev', ['math_factorial']],
      ['5 的阶乘', 'zh', 'test', ['math_factorial']],
      ['5 팩토리얼', 'ko', 'dev', ['math_factorial']],
    ]);
  });
});
