// A throwaway redis-server on a free loopback port for the store benchmarks.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { resolveRedisServer } from '../scripts/lib/redis-server.mjs';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts redis-server (the system's, else valkey-server from PyPI; no persistence) and waits until it accepts connections; killed at exit. */
export async function startServer() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mnp-bench-redis-'));
  const port = await freePort();
  const proc = spawn(resolveRedisServer({ log: (m) => console.error(m) }), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const stop = () => {
    proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const ok = await new Promise((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return { url: `redis://127.0.0.1:${port}`, port, stop };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('redis-server did not start');
}
