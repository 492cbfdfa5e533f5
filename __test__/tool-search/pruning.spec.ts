// Dynamic pruning against @mastra/core 1.59.0 on catalogs large enough to prune: the MetaTool
// tools replicated with varied text (bench/tool-search-realistic.mjs, the same generator as
// crates/core/examples/support/metatool.rs) and real MetaTool queries. The bit-level proof
// (pruned == exhaustive scores) is in Rust; this checks the whole processor against the host.
import { describe, expect, it } from 'vitest';
import { Native, Reference, step, tool } from '../support/tool-search';
import { baseTools, metatoolQueries, replicate } from '../../bench/tool-search-realistic.mjs';

const base = baseTools();
const all: string[] = metatoolQueries();
const queries = Array.from({ length: 240 }, (_, i) => all[(i * 7919) % all.length]);

async function compare(n: number, options: Record<string, unknown>) {
  const tools = Object.fromEntries(replicate(base, n, 42).map((t: { id: string; description: string }) => [t.id, tool(t.id, t.description)]));
  const ref = await step(new Reference({ tools, ...options }));
  const ours = await step(new Native({ tools, ...options }));
  const mismatches: unknown[] = [];
  let found = 0;
  for (const q of queries) {
    const a = await ref.search(q);
    const b = await ours.search(q);
    if (JSON.stringify(a) !== JSON.stringify(b)) mismatches.push({ q, reference: a, native: b });
    if (b.results.length > 0) found++;
  }
  return { mismatches, found };
}

describe('pruned search equals the host on replicated MetaTool catalogs', () => {
  for (const [n, options] of [
    [3000, {}],
    [3000, { search: { topK: 10, minScore: 4 } }],
    [1500, { search: { topK: 1 } }],
    // more hits than the shared result buffer first holds (it grows)
    [1500, { search: { topK: 40 } }],
  ] as const) {
    it(`${n} tools, ${JSON.stringify(options)}`, async () => {
      const { mismatches, found } = await compare(n, options);
      expect(mismatches).toEqual([]);
      expect(found).toBeGreaterThan(queries.length / 2);
    }, 60_000);
  }
});
