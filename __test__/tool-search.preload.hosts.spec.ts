// preload on every host of the matrix: a real Agent of that host with LibSQL memory and a scripted
// model, two user messages on one thread. The first message's tool is offered and called at the
// first model call, the second message preloads its own tool while the first stays loaded, and
// apart from the preloaded tools and the one preload system message each first step is what the
// host's own ToolSearchProcessor gives. (Five tools, so minConfidence 0.4: see
// tool-search.preload.spec.ts.)
import { describe, expect, it } from 'vitest';

import { HOST_VERSIONS, loadHost, type Host } from './support/hosts';
import { runAgent } from './support/agent-run';
import { PRELOAD_HEADER, preloadTools, systemTexts } from './support/preload';

const toolsOf = (host: Host) => preloadTools(host.tools.createTool, host.zod.z ?? host.zod);

describe.each(HOST_VERSIONS)('preload on host @mastra/core %s', (version) => {
  it('each user message gets its tool at the first model call; the rest of the step is the host\u2019s', async () => {
    const host = loadHost(version);
    const turns = ['What is the weather forecast for Lisbon?', 'Please send an email message to Bob'];
    const events: any[] = [];
    const ours = await runAgent(host, {
      inputProcessors: () => [new host.ours.ToolSearchProcessor({ tools: toolsOf(host), search: { mode: 'hybrid' }, preload: { maxTools: 1, minConfidence: 0.4, onPreload: (e: any) => events.push(e) } })],
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
});
