// Nothing leaks and nothing keeps Node alive: run processors in a child process and check
// that it exits by itself and that undisposed processors are garbage-collected.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const child = join(__dirname, '..', 'fixtures', 'tool-search-lifecycle.mjs');

function runChild(mode: string, count: number) {
  const r = spawnSync(process.execPath, ['--expose-gc', child, mode, String(count)], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, signal: r.signal, stderr: r.stderr, report: r.stdout ? JSON.parse(r.stdout.trim().split('\n').pop()!) : undefined };
}

describe('ToolSearchProcessor lifecycle', () => {
  it('1,000 processors created, used and disposed: the process exits promptly on its own', () => {
    const r = runChild('dispose', 1000);
    expect(r.signal).toBeNull(); // not killed by the timeout: TTL timers did not keep Node alive
    expect(r.status).toBe(0);
    expect(r.report.alive).toBe(0);
    expect(r.report.timers).toBe(0);
  });

  it('undisposed processors with live TTL timers are still collected and do not keep Node alive', () => {
    const r = runChild('keep', 300);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(r.report.alive).toBe(0);
    expect(r.report.timers).toBe(0);
  });
});
