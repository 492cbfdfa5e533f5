// A loopback TCP proxy in front of a real redis-server that can answer chosen commands itself
// with a wrong-shaped reply, as a misbehaving proxy, a wrong server or a replaced script would.
// Commands are parsed from the client's RESP arrays, replies from the server's RESP2 stream,
// and every reply goes back in command order (an injected answer waits for the server's
// answers to earlier commands).
import net from 'node:net';

export type Command = string[];
export type Injector = (command: Command) => string | undefined;

/** Length of the complete RESP2 value at `at`, or -1 while it is incomplete. */
function replyLength(buffer: Buffer, at: number): number {
  const lineEnd = buffer.indexOf('\r\n', at);
  if (lineEnd < 0) return -1;
  const type = String.fromCharCode(buffer[at]);
  const head = lineEnd + 2 - at;
  if (type === '+' || type === '-' || type === ':') return head;
  const n = Number(buffer.toString('latin1', at + 1, lineEnd));
  if (type === '$') {
    if (n < 0) return head;
    return buffer.length >= lineEnd + 2 + n + 2 ? head + n + 2 : -1;
  }
  if (type === '*') {
    let length = head;
    for (let i = 0; i < Math.max(n, 0); i++) {
      const item = replyLength(buffer, at + length);
      if (item < 0) return -1;
      length += item;
    }
    return length;
  }
  throw new Error(`resp-proxy: unexpected reply type ${JSON.stringify(type)}`);
}

/** The complete command (RESP array of bulk strings) at `at` and its length, or undefined. */
function parseCommand(buffer: Buffer, at: number): { command: Command; length: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', at);
  if (lineEnd < 0) return undefined;
  if (buffer[at] !== 0x2a) throw new Error('resp-proxy: only RESP array commands are supported');
  const count = Number(buffer.toString('latin1', at + 1, lineEnd));
  let pos = lineEnd + 2;
  const command: Command = [];
  for (let i = 0; i < count; i++) {
    const end = buffer.indexOf('\r\n', pos);
    if (end < 0) return undefined;
    const size = Number(buffer.toString('latin1', pos + 1, end));
    if (buffer.length < end + 2 + size + 2) return undefined;
    command.push(buffer.toString('utf8', end + 2, end + 2 + size));
    pos = end + 2 + size + 2;
  }
  return { command, length: pos - at };
}

export type RespProxy = {
  url: string;
  /** Answer commands for which it returns raw RESP bytes with them; undefined passes through. */
  inject(injector: Injector | undefined): void;
  /** Commands answered by the injector so far. */
  readonly injected: Command[];
  close(): Promise<void>;
};

export async function startRespProxy(targetPort: number): Promise<RespProxy> {
  let injector: Injector | undefined;
  const injected: Command[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: targetPort });
    sockets.add(client).add(upstream);
    // Per connection: one slot per command, in order; a slot is filled by the server's reply
    // (forwarded) or at once (injected); filled slots at the front are written back.
    const slots: { forwarded: boolean; reply?: Buffer }[] = [];
    let fromClient = Buffer.alloc(0);
    let fromServer = Buffer.alloc(0);
    const flush = () => {
      while (slots.length > 0 && slots[0].reply) client.write(slots.shift()!.reply!);
    };
    client.on('data', (chunk) => {
      fromClient = Buffer.concat([fromClient, chunk as Buffer]);
      for (;;) {
        const parsed = parseCommand(fromClient, 0);
        if (!parsed) break;
        const raw = fromClient.subarray(0, parsed.length);
        fromClient = fromClient.subarray(parsed.length);
        const answer = injector?.(parsed.command);
        if (answer !== undefined) {
          injected.push(parsed.command);
          slots.push({ forwarded: false, reply: Buffer.from(answer) });
        } else {
          slots.push({ forwarded: true });
          upstream.write(raw);
        }
      }
      flush();
    });
    upstream.on('data', (chunk) => {
      fromServer = Buffer.concat([fromServer, chunk as Buffer]);
      for (;;) {
        if (fromServer.length === 0) break;
        const length = replyLength(fromServer, 0);
        if (length < 0) break;
        const slot = slots.find((s) => s.forwarded && !s.reply);
        if (!slot) throw new Error('resp-proxy: a reply without a command');
        slot.reply = Buffer.from(fromServer.subarray(0, length));
        fromServer = fromServer.subarray(length);
      }
      flush();
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${address.port}`,
    inject(next) {
      injector = next;
    },
    injected,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
