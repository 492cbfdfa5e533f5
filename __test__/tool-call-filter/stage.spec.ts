// The `stage` option (root install: @mastra/core 1.59, whose own filter works on messages):
// validation with a clear TypeError, the method shape it selects, and processLLMRequest on
// malformed prompts (never a crash; well-formed parts still filtered).
import { describe, expect, it } from 'vitest';

import { ToolCallFilter } from '../../index.js';

const STAGE_ERROR = /^ToolCallFilter: option "stage" must be 'prompt' or undefined \(the host's own stage\), got /;

describe('ToolCallFilter option "stage"', () => {
  it.each([
    ['messages', 'the string "messages"'],
    ['PROMPT', 'the string "PROMPT"'],
    ['', 'the string ""'],
    [null, 'null'],
    [1, 'the number 1'],
    [true, 'boolean'],
    [{}, 'object'],
    [['prompt'], 'an array'],
  ])('rejects %j with a TypeError naming the option and the expected values', (value, shown) => {
    expect(() => new ToolCallFilter({ stage: value } as any)).toThrow(TypeError);
    expect(() => new ToolCallFilter({ stage: value } as any)).toThrow(STAGE_ERROR);
    expect(() => new ToolCallFilter({ stage: value } as any)).toThrow(`got ${shown}`);
  });

  it("absent: the host's stage (1.59: processInput/processInputStep); 'prompt': processLLMRequest only", () => {
    const byDefault: any = new ToolCallFilter();
    expect([typeof byDefault.processInput, typeof byDefault.processInputStep, typeof byDefault.processLLMRequest]).toEqual(['function', 'function', 'undefined']);
    const promptStage: any = new ToolCallFilter({ stage: 'prompt' });
    expect([typeof promptStage.processInput, typeof promptStage.processInputStep, typeof promptStage.processLLMRequest]).toEqual(['undefined', 'undefined', 'function']);
    expect('processInput' in promptStage).toBe(false);
    expect(promptStage).toBeInstanceOf(ToolCallFilter);
    expect(promptStage.constructor).toBe(ToolCallFilter);
    // The same public fields as the host's filter; the stage is not one of them.
    expect(Object.keys(promptStage)).toEqual(['id', 'name', 'exclude', 'filterAfterToolSteps', 'preserveModelOutput']);
    expect(JSON.stringify(promptStage)).toBe(JSON.stringify(byDefault));
  });

  it('a subclass keeps its own overrides and receives the stage methods it lacks', async () => {
    class Logged extends ToolCallFilter {
      seen = 0;
      async processLLMRequest() {
        this.seen++;
        return undefined;
      }
    }
    const logged: any = new Logged({ stage: 'prompt' });
    expect(logged).toBeInstanceOf(Logged);
    await logged.processLLMRequest({ prompt: [], state: {} });
    expect(logged.seen).toBe(1);

    class Plain extends ToolCallFilter {}
    const plain: any = new Plain({ stage: 'prompt' });
    expect(plain).toBeInstanceOf(Plain);
    expect(typeof plain.processLLMRequest).toBe('function');
    expect(plain.processInput).toBeUndefined();
    const prompt = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'text', value: 'x' } }] },
      // (a new user message makes the call history; calls after the last one are a resumed run's)
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ];
    expect(await plain.processLLMRequest({ prompt, state: {} })).toEqual({ prompt: [prompt[0], prompt[3]] });
  });
});

describe("processLLMRequest on malformed prompts (stage: 'prompt')", () => {
  const call = (id: unknown, toolName = 'weather') => ({ type: 'tool-call', toolCallId: id, toolName, input: {} });
  const result = (id: unknown, toolName = 'weather') => ({ type: 'tool-result', toolCallId: id, toolName, output: { type: 'text', value: 'r' } });

  it('a non-array prompt or a missing state is left alone without throwing', async () => {
    const filter: any = new ToolCallFilter({ stage: 'prompt' });
    for (const prompt of [undefined, null, 'text', 42, { role: 'user' }]) {
      expect(await filter.processLLMRequest({ prompt, state: {} })).toBeUndefined();
    }
    const prompt = [{ role: 'assistant', content: [call('c1')] }];
    // No state: the prompt counts as this request's history (as the first prompt of a request).
    expect(await filter.processLLMRequest({ prompt })).toEqual({ prompt: [] });
    expect(await filter.processLLMRequest({ prompt, state: null })).toEqual({ prompt: [] });
  });

  it('null messages and parts, string contents and falsy ids pass through; the rest is filtered', async () => {
    const filter: any = new ToolCallFilter({ stage: 'prompt' });
    const prompt: any[] = [
      null,
      { role: 'system', content: 'sys' },
      { role: 'assistant', content: 'plain string' },
      { role: 'assistant', content: [null, { type: 'text', text: 'kept' }, call(''), call(0), call('c1')] },
      { role: 'tool', content: [result('c1'), result(undefined)] },
      { role: 'assistant', content: '' },
    ];
    const before = structuredClone(prompt);
    const out = await filter.processLLMRequest({ prompt, state: {} });
    expect(prompt).toEqual(before);
    expect(out).toEqual({
      prompt: [
        null,
        { role: 'system', content: 'sys' },
        { role: 'assistant', content: 'plain string' },
        { role: 'assistant', content: [null, { type: 'text', text: 'kept' }, call(''), call(0)] },
        { role: 'tool', content: [result(undefined)] },
      ],
    });
  });

  it('deeply nested or cyclic tool outputs never crash the text rendering', async () => {
    let deep: any = 'bottom';
    for (let i = 0; i < 50_000; i++) deep = { value: deep };
    const cyclic: any = { type: 'json' };
    cyclic.self = cyclic;
    const filter: any = new ToolCallFilter({ stage: 'prompt', preserveModelOutput: true });
    for (const output of [deep, cyclic]) {
      const prompt = [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'assistant', content: [call('c1')] },
        { role: 'tool', content: [{ ...result('c1'), output, providerOptions: { mastra: { modelOutput: output } } }] },
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
      ];
      const out = await filter.processLLMRequest({ prompt, state: {} });
      expect(out.prompt[0]).toBe(prompt[0]);
      expect(out.prompt.length).toBeLessThanOrEqual(3);
    }
  });
});
