// preload on every host of the matrix: a real Agent of that host with LibSQL memory and a scripted
// model, two user messages on one thread. The first message's tool is offered and called at the
// first model call, the second message preloads its own tool while the first stays loaded, and
// apart from the preloaded tools and the one preload system message each first step is what the
// host's own ToolSearchProcessor gives. With storage 'context' the preload holds through the
// steps and the next message from the conversation alone; with redisStore, one process's preload
// is loaded for a second process on the same thread.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';
import { runAgent } from '../support/agent-run';
import { PRELOAD_HEADER, preloadTools, systemTexts } from '../support/preload';
import { useRedis } from '../support/redis-client';
import { runNode } from '../support/run-node';

const redis = useRedis();

/** One agent turn in a child process (fixtures/preload-agent-child.cjs). */
async function childTurn(host: Host, prefix: string, thread: string, text: string, callTool: string, preload: boolean) {
  const child = join(__dirname, '..', 'fixtures', 'preload-agent-child.cjs');
  const run = await runNode([child, host.dir, redis.server.url, prefix, thread, text, callTool, preload ? '1' : '0'], 60_000);
  if (run.status !== 0) throw new Error(`child failed (${run.status} ${run.signal}): ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!);
}

const toolsOf = (host: Host) => preloadTools(host.tools.createTool, host.zod.z ?? host.zod);

describe.each(HOST_VERSIONS)('preload on host @mastra/core %s', (version) => {
  it('each user message gets its tool at the first model call; the rest of the step is the host\u2019s', async () => {
    const host = loadHost(version);
    const turns = ['What is the weather forecast for Lisbon?', 'Please send an email message to Bob'];
    const events: any[] = [];
    const ours = await runAgent(host, {
      inputProcessors: () => [new host.ours.ToolSearchProcessor({ tools: toolsOf(host), search: { mode: 'hybrid' }, preload: { maxTools: 1, onPreload: (e: any) => events.push(e) } })],
      script: [{ tool: 'get_weather', input: {} }, { text: 'sunny' }, { tool: 'send_email', input: {} }, { text: 'sent' }],
      turns,
    });
    const theirs = await runAgent(host, {
      inputProcessors: () => [new host.processors.ToolSearchProcessor({ tools: toolsOf(host) })],
      script: [{ text: 'sunny' }, { text: 'sent' }],
      turns,
    });
    // First message: the weather tool at the first call, and called.
    expect(ours.calls[0].tools).toEqual([...theirs.calls[0].tools, 'get_weather']);
    expect(ours.toolResults[0].map((r) => r.toolName)).toEqual(['get_weather']);
    expect(ours.texts).toEqual(['sunny', 'sent']);
    // Second message: its own tool preloaded, the first still loaded, at its first call.
    expect(ours.calls[2].tools).toEqual([...theirs.calls[1].tools, 'get_weather', 'send_email']);
    expect(ours.toolResults[1].map((r) => r.toolName)).toEqual(['send_email']);
    expect(events.map((e) => e.tools.map((t: any) => t.name))).toEqual([['get_weather'], ['send_email']]);
    // Each first step's system messages are the host's plus one preload message.
    for (const [mine, host0] of [
      [ours.calls[0], theirs.calls[0]],
      [ours.calls[2], theirs.calls[1]],
    ] as const) {
      const own = systemTexts(mine.prompt as any[]);
      expect(own.filter((t) => t.includes(PRELOAD_HEADER))).toHaveLength(1);
      expect(own.filter((t) => !t.includes(PRELOAD_HEADER))).toEqual(systemTexts(host0.prompt as any[]));
    }
    // The meta-tools' definitions are the host's.
    const defs = (call: any) => call.toolDefs.filter((d: any) => d.name === 'search_tools' || d.name === 'load_tool');
    expect(defs(ours.calls[0])).toEqual(defs(theirs.calls[0]));
  });

  it.each(['search', 'load', 'active'])("a tool the filter denies in the '%s' phase is never preloaded or offered", async (phase) => {
    const host = loadHost(version);
    const events: any[] = [];
    const ours = await runAgent(host, {
      inputProcessors: () => [
        new host.ours.ToolSearchProcessor({
          tools: toolsOf(host),
          search: { mode: 'hybrid' },
          preload: { onPreload: (e: any) => events.push(e) },
          filter: ({ toolName, phase: p }: any) => !(toolName === 'get_weather' && p === phase),
        }),
      ],
      script: [{ text: 'ok' }],
      turns: ['What is the weather forecast for Lisbon?'],
    });
    expect(ours.calls[0].tools).not.toContain('get_weather');
    for (const e of events) expect(e.tools.map((t: any) => t.name)).not.toContain('get_weather');
    for (const text of systemTexts(ours.calls[0].prompt as any[]).filter((t) => t.includes(PRELOAD_HEADER))) expect(text).not.toContain('get_weather');
  });

  it("storage 'context' with LibSQL memory: held through the steps, and the next message keeps the first one's tool", async () => {
    const host = loadHost(version);
    const ours = await runAgent(host, {
      inputProcessors: () => [new host.ours.ToolSearchProcessor({ tools: toolsOf(host), search: { mode: 'hybrid' }, storage: 'context', preload: { maxTools: 1 } })],
      script: [{ tool: 'search_tools', input: { query: 'weather' } }, { tool: 'get_weather', input: {} }, { text: 'sunny' }, { tool: 'send_email', input: {} }, { text: 'sent' }],
      turns: ['What is the weather forecast for Lisbon?', 'Please send an email message to Bob'],
    });
    expect(ours.calls[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(ours.calls[1].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(ours.toolResults[0].map((r) => r.toolName)).toEqual(['search_tools', 'get_weather']);
    // The second message: derived from the stored conversation, the first preload is there too.
    expect(ours.calls[3].tools).toEqual(['search_tools', 'load_tool', 'get_weather', 'send_email']);
    expect(ours.toolResults[1].map((r) => r.toolName)).toEqual(['send_email']);
    expect(systemTexts(ours.calls[3].prompt as any[]).filter((t) => t.includes(PRELOAD_HEADER))).toHaveLength(1);
  });

  it('redisStore across two processes: what one preloads, the other offers on the same thread', async () => {
    const host = loadHost(version);
    const prefix = `preload-2p-${version}:`;
    const first = await childTurn(host, prefix, 'thread-2p', 'What is the weather forecast for Lisbon?', 'get_weather', true);
    expect(first.preloaded).toEqual(['get_weather']);
    expect(first.firstTools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(first.toolResults).toEqual(['get_weather']);
    expect(await redis.client.zRange(`${prefix}thread-2p`, 0, -1)).toEqual(['get_weather']);
    const second = await childTurn(host, prefix, 'thread-2p', 'and tomorrow?', 'get_weather', false);
    expect(second.firstTools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(second.toolResults).toEqual(['get_weather']);
    const elsewhere = await childTurn(host, prefix, 'thread-2p-other', 'and tomorrow?', 'get_weather', false);
    expect(elsewhere.firstTools).toEqual(['search_tools', 'load_tool']);
  });
});
