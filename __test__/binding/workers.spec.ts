// The addon under worker_threads: several workers at once, each with every processor (loaded by
// package name through `import` and through `require`), give the same results as the main
// thread; workers that exit on their own, are terminated while idle, or are terminated in the
// middle of their work leave the process healthy; repeated create/terminate cycles neither crash
// nor grow. Everything runs in a child process so that unloading the addon at exit is checked too
// (exit status 0, nothing on stderr).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { runNode } from '../support/run-node';

const CYCLES = 20;
const PER_CYCLE = 2;

describe('worker_threads', () => {
  it(`4 workers at once match the main thread; ${CYCLES} create/terminate cycles; clean exit`, async () => {
    const child = join(__dirname, '..', 'fixtures', 'worker-main.mjs');
    const run = await runNode(['--expose-gc', child, String(CYCLES), String(PER_CYCLE)], 170_000);
    expect(run.signal).toBeNull();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout.trim().split('\n').pop()!);

    // The main thread itself agrees across module systems (same package, two entry points).
    expect(report.referenceSystemsAgree).toBe(true);

    // Four workers returned results (two per module system), every one identical to the main thread's.
    const withResults = report.concurrent.filter((w: any) => w.mode !== 'busy');
    expect(withResults).toHaveLength(4);
    for (const w of withResults) {
      expect(w.error).toBeNull();
      expect(w.matchesMainThread).toBe(true);
    }
    // Natural exits end with 0; terminated workers with 1 (what terminate() reports).
    expect(withResults.filter((w: any) => w.mode === 'natural').map((w: any) => w.exitCode)).toEqual([0, 0]);
    expect(withResults.filter((w: any) => w.mode === 'hold').map((w: any) => w.exitCode)).toEqual([1, 1]);
    // Terminated in the middle of native work: they had started, no error, terminated.
    const busy = report.concurrent.filter((w: any) => w.mode === 'busy');
    expect(busy).toHaveLength(2);
    for (const w of busy) {
      expect(w.started).toBe(true);
      expect(w.error).toBeNull();
      expect(w.exitCode).toBe(1);
    }

    // Cycles: no worker error, results identical to the main thread, no growth.
    expect(report.cycles).toHaveLength(CYCLES);
    for (const cycle of report.cycles) {
      expect(cycle.errors).toEqual([]);
      expect(cycle.mismatches).toBe(0);
      expect(cycle.exitCodes.every((code: number) => code === 0 || code === 1)).toBe(true);
    }
    expect(report.cycles.reduce((n: number, c: any) => n + c.results, 0)).toBeGreaterThanOrEqual(CYCLES);
    // RSS after the last cycle against the first ones (measured: flat at ±5 MB over 60 cycles;
    // 120 workers). A leak of one worker's isolate, catalog or addon instance per cycle would
    // add tens of MB here.
    const early = Math.max(...report.cycles.slice(0, 3).map((c: any) => c.rss));
    expect(report.rss.end).toBeLessThan(early + 40);
  }, 180_000);

  it('the addon loaded only by workers (never by the main thread) works and unloads cleanly', async () => {
    const run = await runNode([join(__dirname, '..', 'fixtures', 'worker-only.mjs')], 120_000);
    expect(run.signal).toBeNull();
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(report.mainLoadedAddon).toBe(false);
    expect(report.errors).toEqual([]);
    expect(report.results).toEqual([true, true, true]);
    expect(report.agree).toBe(true);
    expect(report.searches).toBe(8);
    expect(report.exitCodes.slice(0, 3)).toEqual([0, 0, 0]);
    expect([0, 1]).toContain(report.exitCodes[3]);
  }, 150_000);
});
