// ToolCallFilter's numbered acceptance cases (numbered as in §10 of the project's original
// specification, which is not in this repository: each test states its expectation). Each case
// runs our filter and asserts that expectation; where it makes sense the reference's output is
// computed beside ours and must be deep-equal.
import { MessageList } from '@mastra/core/agent';
import { toolCallFilterProvider } from '@mastra/core/processor-provider';
import { ProcessorRunner, ToolCallFilter as ReferenceFilter } from '@mastra/core/processors';
import { describe, expect, it } from 'vitest';

import { ToolCallFilter } from '../../index.js';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n));
const abort = (() => {
  throw new Error('abort');
}) as any;

function text(id: string, role: 'user' | 'assistant', body: string, n: number, extra: Record<string, unknown> = {}) {
  return { id, role, createdAt: at(n), content: { format: 2, parts: [{ type: 'text', text: body }], content: body, ...extra } };
}

function tool(state: 'call' | 'result' | string, toolCallId: string, toolName: string, extra: Record<string, unknown> = {}) {
  const toolInvocation: Record<string, unknown> = { state, toolCallId, toolName, args: { q: 'SECRET_QUERY' } };
  if (state === 'result') toolInvocation.result = { raw: 'SECRET_RAW_RESULT' };
  return { type: 'tool-invocation', toolInvocation, ...extra };
}

function assistant(id: string, parts: unknown[], n: number, content: Record<string, unknown> = {}) {
  return { id, role: 'assistant', createdAt: at(n), content: { format: 2, parts, ...content } };
}

function listOf(messages: unknown[], source: 'input' | 'response' | 'memory' = 'input') {
  const list = new MessageList({ threadId: 't', resourceId: 'r' });
  list.add(messages as any, source);
  return list;
}

async function both(options: any, list: MessageList, messages: unknown[] = []) {
  const reference = await new ReferenceFilter(options).processInput({ messages: messages as any, messageList: list, abort });
  const ours = await new ToolCallFilter(options).processInput({ messages: messages as any, messageList: list, abort });
  expect(ours).toEqual(reference);
  return ours as any[];
}

const toolParts = (messages: any[]) =>
  messages.flatMap(message => (message.content.parts ?? []).filter((part: any) => part.type === 'tool-invocation'));
const ids = (messages: any[]) => messages.map(message => message.id);

// Upstream's weather fixture: a call, its result and the answer as separate assistant messages.
const weatherFixture = () => [
  text('msg-1', 'user', 'What is the weather in NYC?', 1),
  assistant('msg-2', [tool('call', 'call-1', 'weather')], 2),
  assistant('msg-3', [tool('result', 'call-1', 'weather')], 3),
  text('msg-4', 'assistant', 'It is sunny.', 4),
];

const calculatorWeatherFixture = () => [
  text('msg-1', 'user', 'Add 2+2 then weather', 1),
  assistant('msg-2', [tool('call', 'calc-1', 'calculator')], 2),
  assistant('msg-3', [tool('result', 'calc-1', 'calculator')], 3),
  assistant('msg-4', [tool('call', 'weather-1', 'weather')], 4),
  assistant('msg-5', [tool('result', 'weather-1', 'weather')], 5),
  text('msg-6', 'assistant', 'Done.', 6),
];

// Upstream's toolMessages fixture for preserveModelOutput.
const toolMessages = () => [
  text('u1', 'user', 'Find papers', 1),
  assistant(
    'a1',
    [
      tool('call', 'search-1', 'search', {
        providerMetadata: { mastra: { modelOutput: { type: 'text', value: 'Call metadata must not be preserved' } } },
      }),
      {
        type: 'tool-invocation',
        toolInvocation: {
          state: 'result',
          toolCallId: 'search-1',
          toolName: 'search',
          args: { q: 'SECRET_QUERY' },
          result: { raw: 'SECRET_RAW_RESULT' },
        },
        providerMetadata: { mastra: { modelOutput: { type: 'text', value: 'Compact search summary' } } },
      },
      {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId: 'unsafe-1', toolName: 'unsafe', args: { q: 'UNSAFE_ARGS' }, result: 'UNSAFE_RESULT' },
      },
      tool('call', 'calc-1', 'calculator'),
    ],
    2,
  ),
];

describe('ToolCallFilter spec §10', () => {
  it('1. identity: id, name, and no-argument/undefined/{} constructors filter every tool', async () => {
    for (const filter of [new ToolCallFilter(), new ToolCallFilter(undefined), new ToolCallFilter({})]) {
      expect(filter.id).toBe('tool-call-filter');
      expect(filter.name).toBe('ToolCallFilter');
      const result = (await filter.processInput({ messages: [], messageList: listOf(weatherFixture()), abort })) as any[];
      expect(toolParts(result)).toEqual([]);
    }
    expect(Object.keys(new ToolCallFilter())).toEqual(Object.keys(new ReferenceFilter()));
  });

  it('2. default filter on the weather fixture keeps msg-1 and the consolidated msg-2 without tool parts', async () => {
    const result = await both(undefined, listOf(weatherFixture()));
    expect(ids(result)).toEqual(['msg-1', 'msg-2']);
    expect(toolParts(result)).toEqual([]);
  });

  it('3. messages without tool calls are returned as the same objects', async () => {
    const list = listOf([text('msg-1', 'user', 'Hello', 1), text('msg-2', 'assistant', 'Hi', 2)]);
    const inputs = list.get.all.db();
    const result = await both(undefined, list);
    expect(ids(result)).toEqual(['msg-1', 'msg-2']);
    expect(result[0]).toBe(inputs[0]);
    expect(result[1]).toBe(inputs[1]);
  });

  it('4. a result-only message with top-level text is kept with parts [] (default and exclude)', async () => {
    const message = () => assistant('a3', [tool('result', 's-1', 'search_papers')], 2, { content: 'I found three relevant papers.' });
    for (const options of [undefined, { exclude: ['search_papers'] }]) {
      const result = await both(options, listOf([text('u', 'user', 'q', 1), message()]));
      const kept = result.find(m => m.id === 'a3');
      expect(kept.content.parts).toEqual([]);
      expect(kept.content.content).toBe('I found three relevant papers.');
    }
  });

  it('5. the same message with whitespace-only top-level text is dropped', async () => {
    const result = await both(undefined, listOf([text('u', 'user', 'q', 1), assistant('a4', [tool('result', 's-1', 'search')], 2, { content: '   ' })]));
    expect(ids(result)).toEqual(['u']);
  });

  it('6. an empty MessageList gives []', async () => {
    expect(await both(undefined, new MessageList())).toEqual([]);
  });

  it('7. default filter on the calculator + weather sequence', async () => {
    const result = await both(undefined, listOf(calculatorWeatherFixture()));
    expect(ids(result)).toEqual(['msg-1', 'msg-2']);
    expect(toolParts(result)).toEqual([]);
  });

  it('8. exclude: [weather] removes weather parts and keeps the calculator call/result', async () => {
    const result = await both({ exclude: ['weather'] }, listOf(calculatorWeatherFixture()));
    const names = toolParts(result).map((part: any) => `${part.toolInvocation.toolName}:${part.toolInvocation.state}`);
    expect(names).toEqual(['calculator:result']); // MessageList merged call+result into one part
  });

  it('9. exclude: [weather, search] keeps only calculator parts', async () => {
    const list = listOf([
      text('msg-1', 'user', 'go', 1),
      assistant('msg-2', [tool('call', 'c', 'calculator'), tool('call', 's', 'search'), tool('call', 'w', 'weather')], 2),
      assistant('msg-3', [tool('result', 'c', 'calculator'), tool('result', 's', 'search'), tool('result', 'w', 'weather')], 3),
    ]);
    const result = await both({ exclude: ['weather', 'search'] }, list);
    expect(new Set(toolParts(result).map((part: any) => part.toolInvocation.toolName))).toEqual(new Set(['calculator']));
  });

  it('10. exclude: [] returns the same array and objects, even with preserveModelOutput', async () => {
    const list = listOf(toolMessages());
    const inputs = list.get.all.db();
    const messageList = { get: { all: { db: () => inputs } } } as any;
    const ours = await new ToolCallFilter({ exclude: [], preserveModelOutput: true }).processInput({ messages: [], messageList, abort });
    const reference = await new ReferenceFilter({ exclude: [], preserveModelOutput: true }).processInput({ messages: [], messageList, abort });
    expect(ours).toBe(inputs);
    expect(reference).toBe(inputs);
    expect(JSON.stringify(ours)).not.toContain('search result:');
    expect(JSON.stringify(ours)).toContain('SECRET_RAW_RESULT');
  });

  it('11. exclude: [nonexistent] keeps tool parts', async () => {
    const result = await both({ exclude: ['nonexistent'] }, listOf(weatherFixture()));
    expect(result[1].content.parts[0].type).toBe('tool-invocation');
  });

  it('12. a non-array exclude (string) filters nothing', async () => {
    const result = await both({ exclude: 'weather' }, listOf(weatherFixture()));
    expect(toolParts(result)).toHaveLength(1);
  });

  it('13. a result-only message for an excluded tool is removed', async () => {
    const result = await both({ exclude: ['weather'] }, listOf([text('u', 'user', 'q', 1), assistant('a2', [tool('result', 'w-9', 'weather')], 2)]));
    expect(ids(result)).toEqual(['u']);
  });

  it('14. a result whose id belongs to an excluded call is removed even under another name', async () => {
    const messageList = {
      get: { all: { db: () => [assistant('a', [tool('call', 'w-1', 'weather'), text('x', 'assistant', 'x', 0).content.parts[0]], 1), assistant('b', [tool('result', 'w-1', 'renamed'), tool('result', 'k', 'calculator')], 2)] } },
    } as any;
    const reference = await new ReferenceFilter({ exclude: ['weather'] }).processInput({ messages: [], messageList, abort });
    const ours = (await new ToolCallFilter({ exclude: ['weather'] }).processInput({ messages: [], messageList, abort })) as any[];
    expect(ours).toEqual(reference);
    expect(toolParts(ours).map((part: any) => part.toolInvocation.toolCallId)).toEqual(['k']);
  });

  it('15. exclude-specific keeps partial/error/approval states; exclude-all removes them', async () => {
    const parts = ['partial-call', 'output-error', 'approval-requested', 'call', 'result'].map((state, i) => tool(state, `w${i}`, 'weather'));
    const messageList = { get: { all: { db: () => [assistant('a', parts, 1)] } } } as any;
    const specific = (await new ToolCallFilter({ exclude: ['weather'] }).processInput({ messages: [], messageList, abort })) as any[];
    expect(specific).toEqual(await new ReferenceFilter({ exclude: ['weather'] }).processInput({ messages: [], messageList, abort }));
    expect(toolParts(specific).map((part: any) => part.toolInvocation.state)).toEqual(['partial-call', 'output-error', 'approval-requested']);
    const all = await new ToolCallFilter().processInput({ messages: [], messageList, abort });
    expect(all).toEqual([]);
  });

  it('16. the legacy id toolInvocation.toolCall.id is honoured', async () => {
    const legacy = (state: string, name: string) => ({ type: 'tool-invocation', toolInvocation: { state, toolCall: { id: 'legacy-1' }, toolName: name, args: {} } });
    const messageList = { get: { all: { db: () => [assistant('a', [legacy('call', 'weather'), legacy('result', 'other')], 1), assistant('b', [legacy('call', 'calc')], 2)] } }, response: { db: () => [] } } as any;
    for (const options of [{ exclude: ['weather'] }, { exclude: ['calc'] }]) {
      const ours = await new ToolCallFilter(options).processInput({ messages: [], messageList, abort });
      expect(ours).toEqual(await new ReferenceFilter(options).processInput({ messages: [], messageList, abort }));
    }
    expect(toolParts((await new ToolCallFilter({ exclude: ['weather'] }).processInput({ messages: [], messageList, abort })) as any[])).toEqual([
      legacy('call', 'calc'),
    ]);
    // Preservation by the step window uses the same id.
    const response = { get: { all: { db: () => [assistant('a', [legacy('call', 'weather')], 1)] }, response: { db: () => [assistant('a', [legacy('call', 'weather')], 1)] } } } as any;
    const step: any = await new ToolCallFilter({ filterAfterToolSteps: 1 }).processInputStep({ messageList: response, state: {} } as any);
    expect(toolParts(step.messages)).toHaveLength(1);
  });

  it('17. toolInvocations: removed when nothing survives, filtered by name in exclude mode, untouched without parts', async () => {
    const entry = (id: string, name: string) => ({ state: 'result', toolCallId: id, toolName: name, args: {}, result: 1 });
    const messages = [
      assistant('a', [{ type: 'text', text: 'checked' }, tool('result', 'w', 'weather'), tool('result', 'c', 'calculator')], 1, { toolInvocations: [entry('w', 'weather'), entry('c', 'calculator')] }),
      text('b', 'assistant', 'only', 2, { toolInvocations: [entry('x', 'weather')] }),
    ];
    const messageList = { get: { all: { db: () => messages } } } as any;
    const all = (await new ToolCallFilter().processInput({ messages: [], messageList, abort })) as any[];
    expect(all).toEqual(await new ReferenceFilter().processInput({ messages: [], messageList, abort }));
    expect('toolInvocations' in all[0].content).toBe(false);
    expect(all[1]).toBe(messages[1]);
    const specific = (await new ToolCallFilter({ exclude: ['weather'] }).processInput({ messages: [], messageList, abort })) as any[];
    expect(specific).toEqual(await new ReferenceFilter({ exclude: ['weather'] }).processInput({ messages: [], messageList, abort }));
    expect(specific[0].content.toolInvocations).toEqual([entry('c', 'calculator')]);
  });

  it('18. a message left with only step-start parts is kept', async () => {
    const messageList = { get: { all: { db: () => [assistant('a', [tool('call', 'w', 'weather'), { type: 'step-start' }], 1)] } } } as any;
    const ours = (await new ToolCallFilter().processInput({ messages: [], messageList, abort })) as any[];
    expect(ours).toEqual(await new ReferenceFilter().processInput({ messages: [], messageList, abort }));
    expect(ours[0].content.parts).toEqual([{ type: 'step-start' }]);
  });

  it('19. preserveModelOutput: false drops model output and raw results', async () => {
    const result = await both({ preserveModelOutput: false }, listOf(toolMessages()));
    expect(JSON.stringify(result)).not.toContain('Compact search summary');
    expect(JSON.stringify(result)).not.toContain('SECRET_RAW_RESULT');
  });

  it('20. preserveModelOutput: true keeps only the compact text of completed results', async () => {
    const result = await both({ preserveModelOutput: true }, listOf(toolMessages()));
    const serialized = JSON.stringify(result);
    expect(result.flatMap(m => m.content.parts)).toContainEqual({ type: 'text', text: 'search result:\nCompact search summary' });
    for (const secret of ['Call metadata must not be preserved', 'SECRET_RAW_RESULT', 'SECRET_QUERY', 'UNSAFE_RESULT', 'UNSAFE_ARGS']) {
      expect(serialized).not.toContain(secret);
    }
    expect(toolParts(result)).toEqual([]);
  });

  it('21. preserveModelOutput + exclude: [search] compacts search and keeps calculator', async () => {
    const result = await both({ preserveModelOutput: true, exclude: ['search'] }, listOf(toolMessages()));
    const parts = result.flatMap(m => m.content.parts);
    expect(parts).toContainEqual({ type: 'text', text: 'search result:\nCompact search summary' });
    expect(toolParts(result).map((part: any) => part.toolInvocation.toolName)).toContain('calculator');
  });

  it('22. model-output shapes render like the reference', async () => {
    const circular: any = { name: 'loop' };
    circular.self = circular;
    const cases: Array<[string, unknown, string | null]> = [
      ['textTool', { type: 'text', text: 'Text from text field' }, 'textTool result:\nText from text field'],
      ['numberTool', 42, 'numberTool result:\n42'],
      ['boolTool', false, 'boolTool result:\nfalse'],
      ['arrayTool', [{ type: 'text', value: 'First line' }, { type: 'json', value: { safe: true } }], 'arrayTool result:\nFirst line\n{"safe":true}'],
      ['jsonTool', { type: 'json', value: { total: 7 } }, 'jsonTool result:\n{"total":7}'],
      ['contentTool', { type: 'content', value: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second' }] }, 'contentTool result:\nfirst\nsecond'],
      ['objTool', { a: 1 }, 'objTool result:\n{"a":1}'],
      ['objTextTool', { text: 'only text' }, 'objTextTool result:\nonly text'],
      ['nullArrayTool', [null, ''], 'nullArrayTool result:\n[null,""]'],
      ['emptyTool', '', null],
      ['nullTool', null, null],
      ['circularTool', circular, null],
    ];
    for (const [name, modelOutput, expected] of cases) {
      const part = {
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId: `id-${name}`, toolName: name, args: { q: 'SECRET_QUERY' }, result: 'SECRET_RAW_RESULT' },
        providerMetadata: { mastra: { modelOutput } },
      };
      const messageList = { get: { all: { db: () => [assistant('a', [part, { type: 'text', text: 'after' }], 1)] } } } as any;
      const ours = (await new ToolCallFilter({ preserveModelOutput: true }).processInput({ messages: [], messageList, abort })) as any[];
      expect(ours).toEqual(await new ReferenceFilter({ preserveModelOutput: true }).processInput({ messages: [], messageList, abort }));
      const texts = ours[0].content.parts.map((p: any) => p.text);
      expect(texts, name).toEqual(expected === null ? ['after'] : [expected, 'after']);
      expect(JSON.stringify(ours)).not.toMatch(/SECRET_/);
    }
  });

  it('23. the replacement part sits where the removed part was and has only type and text', async () => {
    const result = await both({ preserveModelOutput: true }, listOf(toolMessages()));
    const parts = result.find(m => m.id === 'a1').content.parts;
    expect(parts[0]).toEqual({ type: 'text', text: 'search result:\nCompact search summary' });
    expect(Object.keys(parts[0])).toEqual(['type', 'text']);
  });

  it('24. processInput ignores args.messages, does not mutate the MessageList, and returns an array', async () => {
    const list = listOf(weatherFixture());
    const before = JSON.stringify(list.get.all.db());
    const result = await new ToolCallFilter().processInput({ messages: [], messageList: list, abort });
    expect(Array.isArray(result)).toBe(true);
    expect(ids(result as any[])).toEqual(['msg-1', 'msg-2']);
    expect(JSON.stringify(list.get.all.db())).toBe(before);
  });

  it('25. processInputStep without filterAfterToolSteps returns {} and leaves state alone', async () => {
    const state = {};
    expect(await new ToolCallFilter().processInputStep({ messageList: listOf(weatherFixture()), state } as any)).toEqual({});
    expect(state).toEqual({});
  });

  it('26. filterAfterToolSteps: 0 removes every tool part; with preserveModelOutput the prompt has no tool message', async () => {
    const result: any = await new ToolCallFilter({ filterAfterToolSteps: 0 }).processInputStep({ messageList: listOf(weatherFixture()), state: {} } as any);
    expect(toolParts(result.messages)).toEqual([]);
    expect(JSON.stringify(result.messages)).toContain('It is sunny.');

    const preserved: any = await new ToolCallFilter({ filterAfterToolSteps: 0, preserveModelOutput: true }).processInputStep({ messageList: listOf(toolMessages()), state: {} } as any);
    const prompt = new MessageList().add(preserved.messages, 'input').get.all.aiV5.llmPrompt();
    const resolved = await prompt;
    expect(resolved.some((message: any) => message.role === 'tool')).toBe(false);
    expect(JSON.stringify(resolved)).toContain('Compact search summary');
  });

  it('27. filterAfterToolSteps: 1 keeps only the latest step and records the groups in state', async () => {
    const list = new MessageList({ threadId: 't', resourceId: 'r' });
    list.add([text('u', 'user', 'go', 1)] as any, 'input');
    list.add([assistant('r1', [tool('result', 'call-old', 'weather')], 2)] as any, 'response');
    const state: any = {};
    const referenceState: any = {};
    const filter = new ToolCallFilter({ filterAfterToolSteps: 1 });
    const reference = new ReferenceFilter({ filterAfterToolSteps: 1 });
    const stepOnce = async () => {
      const ours: any = await filter.processInputStep({ messageList: list, state } as any);
      expect(ours).toEqual(await reference.processInputStep({ messageList: list, state: referenceState } as any));
      expect(state).toEqual(referenceState);
      return toolParts(ours.messages).map((part: any) => part.toolInvocation.toolCallId);
    };
    expect(await stepOnce()).toEqual(['call-old']);
    list.add([assistant('r2', [tool('result', 'call-recent', 'weather')], 3)] as any, 'response');
    expect(await stepOnce()).toEqual(['call-recent']);
    expect(state).toEqual({
      toolCallFilterSeenToolCallIds: ['call-old', 'call-recent'],
      toolCallFilterStepToolCallIds: [['call-old'], ['call-recent']],
    });
    expect(await stepOnce()).toEqual([]);
    expect(state.toolCallFilterStepToolCallIds).toEqual([['call-old'], ['call-recent'], []]);
  });

  it('28. filterAfterToolSteps: 1 + preserveModelOutput keeps a recent response result raw', async () => {
    const list = new MessageList({ threadId: 't', resourceId: 'r' });
    list.add([text('u1', 'user', 'Find papers', 1)] as any, 'input');
    list.add([toolMessages()[1]] as any, 'response');
    const result: any = await new ToolCallFilter({ filterAfterToolSteps: 1, preserveModelOutput: true }).processInputStep({ messageList: list, state: {} } as any);
    const serialized = JSON.stringify(result.messages);
    expect(serialized).toContain('SECRET_QUERY');
    expect(serialized).toContain('SECRET_RAW_RESULT');
    expect(serialized).not.toContain('search result:');
  });

  it('29. exclude: [weather] with filterAfterToolSteps: 0 keeps book-flight parts', async () => {
    const list = listOf([
      text('u', 'user', 'go', 1),
      assistant('a', [tool('call', 'b1', 'book-flight'), tool('call', 'w1', 'weather')], 2),
      assistant('b', [tool('result', 'b1', 'book-flight'), tool('result', 'w1', 'weather')], 3),
    ]);
    const ours: any = await new ToolCallFilter({ exclude: ['weather'], filterAfterToolSteps: 0 }).processInputStep({ messageList: list, state: {} } as any);
    expect(ours).toEqual(await new ReferenceFilter({ exclude: ['weather'], filterAfterToolSteps: 0 }).processInputStep({ messageList: list, state: {} } as any));
    expect(toolParts(ours.messages).map((part: any) => part.toolInvocation.toolName)).toEqual(['book-flight']);
  });

  it('30. exclude: [] with filterAfterToolSteps: 0 returns all messages', async () => {
    const list = listOf([text('u', 'user', 'go', 1), assistant('a', [tool('result', 'w', 'weather')], 2)]);
    const ours: any = await new ToolCallFilter({ exclude: [], filterAfterToolSteps: 0 }).processInputStep({ messageList: list, state: {} } as any);
    expect(ours.messages).toHaveLength(2);
  });

  it('31. negative windows behave like 0; history tool calls are filtered even with a large window', async () => {
    const list = new MessageList({ threadId: 't', resourceId: 'r' });
    list.add([text('u', 'user', 'go', 1), assistant('h', [tool('result', 'hist', 'weather')], 2, { content: 'history' })] as any, 'input');
    list.add([text('u2', 'user', 'again', 3)] as any, 'input');
    list.add([assistant('r', [tool('result', 'resp', 'weather')], 4)] as any, 'response');
    const negative: any = await new ToolCallFilter({ filterAfterToolSteps: -3 }).processInputStep({ messageList: list, state: {} } as any);
    expect(toolParts(negative.messages)).toEqual([]);
    const large: any = await new ToolCallFilter({ filterAfterToolSteps: 5 }).processInputStep({ messageList: list, state: {} } as any);
    expect(toolParts(large.messages).map((part: any) => part.toolInvocation.toolCallId)).toEqual(['resp']);
    expect(large).toEqual(await new ReferenceFilter({ filterAfterToolSteps: 5 }).processInputStep({ messageList: list, state: {} } as any));
  });

  it('32. the provider-built reference and our class agree for the same config', async () => {
    for (const config of [{ filterAfterToolSteps: 0, preserveModelOutput: true }, { preserveModelOutput: true }]) {
      const parsed = toolCallFilterProvider.configSchema.parse(config);
      const fromProvider = toolCallFilterProvider.createProcessor(parsed as any) as any;
      const ours = new ToolCallFilter(parsed);
      const list = listOf(toolMessages());
      if ('filterAfterToolSteps' in config) {
        const expected = await fromProvider.processInputStep({ messageList: list, state: {} });
        const actual: any = await ours.processInputStep({ messageList: list, state: {} } as any);
        expect(actual).toEqual(expected);
        expect(JSON.stringify(actual)).toContain('Compact search summary');
        expect(JSON.stringify(actual)).not.toContain('SECRET_RAW_RESULT');
      } else {
        const expected = await fromProvider.processInput({ messages: [], messageList: list, abort });
        const actual = await ours.processInput({ messages: [], messageList: list, abort });
        expect(actual).toEqual(expected);
        expect(JSON.stringify(actual)).toContain('Compact search summary');
      }
    }
  });

  it('33. agent-loop windows are covered end to end in tool-call-filter/agent.spec.ts', async () => {
    // Direct form of the same rule: four steps over three tool calls, window 2.
    const list = new MessageList({ threadId: 't', resourceId: 'r' });
    list.add([text('u', 'user', 'go', 1)] as any, 'input');
    const filter = new ToolCallFilter({ filterAfterToolSteps: 2 });
    const state = {};
    const seen: string[][] = [];
    for (let step = 0; step < 4; step++) {
      if (step > 0) list.add([assistant(`r${step}`, [tool('result', `w${step}`, 'weather')], 10 + step)] as any, 'response');
      const result: any = await filter.processInputStep({ messageList: list, state } as any);
      seen.push(toolParts(result.messages).map((part: any) => part.toolInvocation.toolCallId));
    }
    expect(seen).toEqual([[], ['w1'], ['w1', 'w2'], ['w2', 'w3']]);
  });

  it('34. 1.59.0 host behaviour: runInputProcessors leaves the filtered versions in the shared MessageList', async () => {
    const run = async (processor: any) => {
      const list = new MessageList({ threadId: 't', resourceId: 'r' });
      list.add(
        [
          assistant('m-tools', [tool('result', 's1', 'search', { providerMetadata: { mastra: { modelOutput: 'compact result' } } })], 1, { content: 'x' }),
          assistant('m-toolsonly', [tool('result', 's2', 'search')], 2),
        ] as any,
        'memory',
      );
      list.add([text('u', 'user', 'Summarize that', 3)] as any, 'input');
      await new ProcessorRunner({ inputProcessors: [processor], outputProcessors: [] } as any).runInputProcessors(list);
      return list.get.all.db().map((message: any) => ({ id: message.id, parts: message.content.parts.map((part: any) => part.text ?? part.type) }));
    };
    const ours = await run(new ToolCallFilter({ preserveModelOutput: true }));
    expect(ours).toEqual(await run(new ReferenceFilter({ preserveModelOutput: true })));
    expect(ours.find(m => m.id === 'm-tools')?.parts).toEqual(['search result:\ncompact result']);
  });
});
