// A child process driven over JSON lines (the fixtures/*-child.mjs protocol): each request is
// `{ id, ...fields }` on stdin, each answer `{ id, ok, value?, error? }` on stdout, and a first
// `{ ready: true, ... }` line says the child is set up.
import type { ChildProcess } from 'node:child_process';
import readline from 'node:readline';

type Reply = { ok: boolean; value?: unknown; error?: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class LineChild<Ready = unknown> {
  private next = 0;
  private waiting = new Map<number, (msg: Reply) => void>();
  ready: Promise<Ready>;
  constructor(readonly proc: ChildProcess) {
    const rl = readline.createInterface({ input: proc.stdout! });
    let onReady: (v: Ready) => void;
    this.ready = new Promise((resolve) => (onReady = resolve));
    rl.on('line', (line) => {
      const msg = JSON.parse(line);
      if (msg.ready) onReady(msg);
      else this.waiting.get(msg.id)?.(msg);
    });
  }
  /** Sends one request; resolves with its value, rejects with the child's error. */
  protected async request(fields: Record<string, unknown>): Promise<any> {
    const id = ++this.next;
    const reply = new Promise<Reply>((resolve) => this.waiting.set(id, resolve));
    this.proc.stdin!.write(`${JSON.stringify({ id, ...fields })}\n`);
    const msg = await reply;
    if (!msg.ok) throw new Error(msg.error);
    return msg.value;
  }
  /** Ends stdin and waits for the exit; a child still running after 5 s is killed. */
  async close() {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.stdin!.end();
    await Promise.race([exited, sleep(5000).then(() => this.proc.kill('SIGKILL'))]);
  }
}
