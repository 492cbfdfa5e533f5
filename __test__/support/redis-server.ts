// A real redis-server for tests: started on a free loopback port in a temp dir, no
// persistence, stopped after (also on process exit). `restart()` brings it back on the same
// port; `stop()` kills it (SIGKILL: an abrupt outage, like a crashed server).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const REDIS_SERVER_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One raw PING over a fresh socket: true when the server answers +PONG. */
export function ping(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let buffer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      if (buffer.includes('\r\n')) done(buffer.startsWith('+PONG'));
    });
  });
}

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  readonly running: boolean;
  /** SIGKILL the server and wait until it exited. */
  stop(): Promise<void>;
  /** Start again on the same port (after stop()). */
  restart(): Promise<void>;
  /** Stop for good and remove the temp dir. */
  close(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  installExitHook();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mnp-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stderr = '';

  const launch = async () => {
    stderr = '';
    const proc = spawn(
      REDIS_SERVER_BIN,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    proc.stderr?.on('data', (chunk) => {
      stderr += chunk.toString();
    });
    live.add(proc);
    proc.once('exit', () => live.delete(proc));
    child = proc;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(`redis-server exited early (code ${proc.exitCode}): ${stderr}`);
      }
      if (await ping(port)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    proc.kill('SIGKILL');
    throw new Error(`redis-server did not answer PING on port ${port} within 10 s: ${stderr}`);
  };

  const stop = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGKILL');
    await exited;
  };

  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    stop,
    async restart() {
      await stop();
      await launch();
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
