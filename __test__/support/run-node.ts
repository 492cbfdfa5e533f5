// Runs a Node.js child process from the repo root without blocking the test worker.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export type NodeRun = { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs node with `args` asynchronously (a long spawnSync would block the test worker's RPC); SIGKILL after `timeout` ms. */
export function runNode(args: string[], timeout: number): Promise<NodeRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}
