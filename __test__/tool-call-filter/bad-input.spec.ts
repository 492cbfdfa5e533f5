// Bad input: ours never crashes. Where the reference passes data through, ours does the same
// (asserted by deep equality); where the reference throws, the test states what it does next to
// what we do instead.
import { ToolCallFilter as ReferenceFilter } from '@mastra/core/processors';
import { describe, expect, it } from 'vitest';

import { ToolCallFilter } from '../../index.js';

const listOf = (all: unknown[], response: unknown[] = []) =>
  ({ get: { all: { db: () => all }, response: { db: () => response } } }) as any;
const call = (id: string, name = 'weather') => ({ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: id, toolName: name, args: {} } });
const assistant = (id: string, parts: unknown, extra: Record<string, unknown> = {}) => ({ id, role: 'assistant', content: { format: 2, parts, ...extra } });

async function run(Filter: any, options: any, messages: unknown[]) {
  return new Filter(options).processInput({ messages: [], messageList: listOf(messages), abort: () => {} });
}

describe('ToolCallFilter on bad input', () => {
  it('null and undefined entries: the reference throws a TypeError; ours passes them through', async () => {
    const messages = [null, undefined, assistant('a', [call('c1'), { type: 'text', text: 'kept' }])];
    await expect(run(ReferenceFilter, undefined, messages)).rejects.toThrow(TypeError);
    const ours = (await run(ToolCallFilter, undefined, messages)) as any[];
    expect(ours).toEqual([null, undefined, assistant('a', [{ type: 'text', text: 'kept' }])]);
  });

  it('non-object entries (numbers, strings) pass through, as in the reference', async () => {
    for (const options of [undefined, { exclude: ['weather'] }]) {
      const messages = [42, 'hello', true, assistant('a', [call('c1')], { content: 'text' })];
      expect(await run(ToolCallFilter, options, messages)).toEqual(await run(ReferenceFilter, options, messages));
    }
  });

  it('messages without content, with string content, or without parts pass through unchanged (same objects)', async () => {
    const messages = [{ id: 'x', role: 'user' }, { id: 'y', role: 'user', content: 'plain' }, { id: 'z', role: 'user', content: { format: 2 } }, { id: 'w', content: null }];
    for (const options of [undefined, { exclude: ['weather'] }, { preserveModelOutput: true }]) {
      const ours = (await run(ToolCallFilter, options, messages)) as any[];
      expect(ours).toEqual(await run(ReferenceFilter, options, messages));
      ours.forEach((message, i) => expect(message).toBe(messages[i]));
    }
  });

  it('unknown part types are kept, as in the reference', async () => {
    const messages = [assistant('a', [{ type: 'mystery', x: 1 }, { noType: true }, call('c1')])];
    for (const options of [undefined, { exclude: ['weather'] }]) {
      expect(await run(ToolCallFilter, options, messages)).toEqual(await run(ReferenceFilter, options, messages));
    }
  });

  it('tool-invocation parts missing toolCallId, toolName or state behave like the reference', async () => {
    const parts = [
      { type: 'tool-invocation', toolInvocation: { state: 'result', toolName: 'weather' } },
      { type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: 'c2' } },
      { type: 'tool-invocation', toolInvocation: { toolCallId: 'c3', toolName: 'weather' } },
      { type: 'tool-invocation', toolInvocation: {} },
      { type: 'text', text: 'kept' },
    ];
    for (const options of [undefined, { exclude: ['weather'] }, { exclude: [undefined] }, { preserveModelOutput: true }]) {
      const messages = [assistant('a', parts, { toolInvocations: [{ toolName: 'weather' }, { toolCallId: 'c2' }] })];
      expect(await run(ToolCallFilter, options, messages)).toEqual(await run(ReferenceFilter, options, messages));
    }
  });

  it('a tool-invocation part without toolInvocation: the reference throws; ours treats it as an unnamed tool part', async () => {
    const messages = [assistant('a', [{ type: 'tool-invocation' }, { type: 'text', text: 'kept' }])];
    await expect(run(ReferenceFilter, undefined, messages)).rejects.toThrow(TypeError);
    expect(await run(ToolCallFilter, undefined, messages)).toEqual([assistant('a', [{ type: 'text', text: 'kept' }])]);
    // Exclude-specific: no name, no state → not excluded, kept.
    await expect(run(ReferenceFilter, { exclude: ['weather'] }, messages)).rejects.toThrow(TypeError);
    expect(await run(ToolCallFilter, { exclude: ['weather'] }, messages)).toEqual(messages);
  });

  it('null parts and a non-array parts: the reference throws; ours keeps null parts and passes non-arrays through', async () => {
    const withNull = [assistant('a', [null, call('c1'), { type: 'text', text: 'kept' }])];
    await expect(run(ReferenceFilter, undefined, withNull)).rejects.toThrow(TypeError);
    expect(await run(ToolCallFilter, undefined, withNull)).toEqual([assistant('a', [null, { type: 'text', text: 'kept' }])]);
    const nonArray = [assistant('a', 'not parts')];
    await expect(run(ReferenceFilter, undefined, nonArray)).rejects.toThrow(TypeError);
    expect(await run(ToolCallFilter, undefined, nonArray)).toEqual(nonArray);
  });

  it('null toolInvocations entries: the reference throws; ours drops them with the filtered tools', async () => {
    const messages = [assistant('a', [call('c1'), { type: 'text', text: 'kept' }], { toolInvocations: [null, { toolCallId: 'k', toolName: 'calc' }] })];
    await expect(run(ReferenceFilter, undefined, messages)).rejects.toThrow(TypeError);
    expect(await run(ToolCallFilter, undefined, messages)).toEqual([assistant('a', [{ type: 'text', text: 'kept' }])]);
    expect(await run(ToolCallFilter, { exclude: ['weather'] }, messages)).toEqual([
      assistant('a', [{ type: 'text', text: 'kept' }], { toolInvocations: [null, { toolCallId: 'k', toolName: 'calc' }] }),
    ]);
  });

  it('a model output that is cyclic through value: the reference overflows the stack; ours renders no text', async () => {
    const loop: any = { type: 'json' };
    loop.value = loop;
    const part = { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'x' }, providerMetadata: { mastra: { modelOutput: loop } } };
    const messages = [assistant('a', [part, { type: 'text', text: 'kept' }])];
    await expect(run(ReferenceFilter, { preserveModelOutput: true }, messages)).rejects.toThrow(RangeError);
    expect(await run(ToolCallFilter, { preserveModelOutput: true }, messages)).toEqual([assistant('a', [{ type: 'text', text: 'kept' }])]);
  });

  it('non-array exclude (string, number, object) filters nothing, as in the reference', async () => {
    const messages = [assistant('a', [call('c1')])];
    for (const exclude of ['weather', 1, { weather: true }]) {
      const ours = await run(ToolCallFilter, { exclude }, messages);
      expect(ours).toEqual(await run(ReferenceFilter, { exclude }, messages));
      expect(ours).toEqual(messages);
    }
  });

  it('non-number filterAfterToolSteps that the reference coerces (string, null, boolean) behave identically', async () => {
    const messages = [assistant('a', [call('c1')]), assistant('b', [call('c2')])];
    for (const filterAfterToolSteps of ['1', '2', null, true, false, 'abc', {}, [1]]) {
      const referenceState = {};
      const ourState = {};
      const reference = await new ReferenceFilter({ filterAfterToolSteps } as any).processInputStep({ messageList: listOf(messages, messages.slice(1)), state: referenceState } as any);
      const ours = await new ToolCallFilter({ filterAfterToolSteps } as any).processInputStep({ messageList: listOf(messages, messages.slice(1)), state: ourState } as any);
      expect(ours, String(filterAfterToolSteps)).toEqual(reference);
      expect(ourState).toEqual(referenceState);
    }
  });

  it('a bigint or symbol filterAfterToolSteps: the reference throws a TypeError at the first step; ours throws an Error naming the option at construction', async () => {
    for (const filterAfterToolSteps of [2n, Symbol('two')]) {
      const reference = new ReferenceFilter({ filterAfterToolSteps } as any);
      await expect(reference.processInputStep({ messageList: listOf([], []), state: {} } as any)).rejects.toThrow(TypeError);
      expect(() => new ToolCallFilter({ filterAfterToolSteps } as any)).toThrow(/filterAfterToolSteps/);
    }
  });

  it('null options: the reference throws a TypeError in its constructor; ours uses the defaults', () => {
    expect(() => new ReferenceFilter(null as any)).toThrow(TypeError);
    const ours = new ToolCallFilter(null as any);
    expect({ ...ours }).toEqual({ ...new ReferenceFilter() });
  });

  it('a state entry that is not iterable: the reference throws a TypeError; ours starts the bookkeeping over', async () => {
    const messages = [assistant('a', [call('c1')])];
    const referenceState = { toolCallFilterSeenToolCallIds: 5 };
    await expect(
      new ReferenceFilter({ filterAfterToolSteps: 1 }).processInputStep({ messageList: listOf(messages, messages), state: referenceState } as any),
    ).rejects.toThrow(TypeError);
    const state: any = { toolCallFilterSeenToolCallIds: 5 };
    const ours: any = await new ToolCallFilter({ filterAfterToolSteps: 1 }).processInputStep({ messageList: listOf(messages, messages), state } as any);
    expect(ours.messages).toEqual(messages);
    expect(state).toEqual({ toolCallFilterSeenToolCallIds: ['c1'], toolCallFilterStepToolCallIds: [['c1']] });
  });

  it('odd but iterable state (strings, non-array groups) is read the way the reference reads it', async () => {
    const messages = [assistant('a', [call('x'), call('c1')])];
    const make = () => ({ toolCallFilterSeenToolCallIds: 'xy', toolCallFilterStepToolCallIds: ['x', ['c1']] });
    const referenceState = make();
    const ourState = make();
    const reference = await new ReferenceFilter({ filterAfterToolSteps: 3 }).processInputStep({ messageList: listOf(messages, messages), state: referenceState } as any);
    const ours = await new ToolCallFilter({ filterAfterToolSteps: 3 }).processInputStep({ messageList: listOf(messages, messages), state: ourState } as any);
    expect(ours).toEqual(reference);
    expect(ourState).toEqual(referenceState);
  });

  it('a very deep model output does not crash', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    const part = { type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c', toolName: 'deep' }, providerMetadata: { mastra: { modelOutput: deep } } };
    const ours = (await run(ToolCallFilter, { preserveModelOutput: true }, [assistant('a', [part, { type: 'text', text: 'kept' }])])) as any[];
    expect(ours[0].content.parts.at(-1)).toEqual({ type: 'text', text: 'kept' });
  });
});
