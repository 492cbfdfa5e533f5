// No JS call can abort the process (issue 24): every exported entry point of the native binding —
// functions, static factories, constructors, methods, getters, and methods called on objects of
// another class — is called with hostile argument lists shaped like the real calls (huge,
// negative and NaN counts, wrong types, empty, odd and random buffers, forged model files,
// ToolCallFilter wires with consistent counts and random contents) in a child process per entry
// (support/binding-fuzz.cjs). A JS exception is the only allowed refusal: a signal, exit 134
// (Rust's `memory allocation of … failed` abort), a non-Error throw or a hang fails the test.
// The cases that once aborted Node (a joined build with a count of 1e9, -1 or 2^32-1; a model file
// that is /dev/zero, a directory, or a forged vocabulary count) must each throw.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runNode } from '../support/run-node';

const CHILD = join(__dirname, '..', 'support', 'binding-fuzz.cjs');
// Fixed seeds (replay one with `node __test__/support/binding-fuzz.cjs <entry> <seed>`);
// FUZZ_SEED explores others.
const SEED = Number(process.env.FUZZ_SEED ?? 20261203);
const RANDOM_CALLS = 400;

async function entries(): Promise<string[]> {
  const run = await runNode([CHILD, '--list'], 60_000);
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout);
}

describe('native binding under hostile arguments', () => {
  it('every entry point refuses with a JS Error and never aborts', async () => {
    const names = await entries();
    expect(names.length).toBeGreaterThanOrEqual(30);
    const results: { name: string; run: Awaited<ReturnType<typeof runNode>> }[] = [];
    const queue = names.map((name, i) => ({ name, seed: SEED + i }));
    // A few children at a time: each is a short, CPU-bound process.
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let job = queue.shift(); job; job = queue.shift()) {
          results.push({ name: job.name, run: await runNode([CHILD, job.name, String(job.seed), String(RANDOM_CALLS)], 120_000) });
        }
      }),
    );
    for (const { name, run } of results) {
      const where = `${name}: ${run.stderr.slice(0, 600)}`;
      expect(run.signal, where).toBeNull();
      expect(run.status, where).toBe(0);
      expect(run.stderr, where).toBe('');
      const outcome = JSON.parse(run.stdout.trim().split('\n').pop()!);
      expect(outcome.entry).toBe(name);
      expect(outcome.calls, name).toBeGreaterThan(RANDOM_CALLS);
      // Every refusal is an Error; the valid baseline (and more) really ran.
      expect(outcome.nonErrorThrows, name).toBe(0);
      expect(outcome.returned, name).toBeGreaterThan(0);
      expect(outcome.threw, name).toBeGreaterThan(0);
      expect(outcome.mustThrowHeld, name).toBe(outcome.mustThrow);
    }
    const regression = results.filter(({ run }) => JSON.parse(run.stdout.trim().split('\n').pop()!).mustThrow > 0).map((r) => r.name);
    expect(regression.sort()).toEqual([
      'NativeSemanticModel.fromBytes',
      'NativeToolCatalog.build(joined)',
      'NativeToolCatalog.build(joined, hybrid)',
      'NativeToolCatalog.buildAsync(joined)',
      'NativeToolCatalog.buildAsync(joined, hybrid)',
    ]);
  }, 300_000);
});
