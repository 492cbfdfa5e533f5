// Differential property test: seeded random conversations × every option combination, run through
// processInput and multi-step processInputStep on @mastra/core@1.59.0's ToolCallFilter and ours.
// Outputs must deep-equal the reference's (including which messages are the very same input
// objects), args.state must end up equal, and neither may mutate its input.
import { isDeepStrictEqual } from 'node:util';

import { ToolCallFilter as ReferenceFilter } from '@mastra/core/processors';
import { describe, expect, it } from 'vitest';

import { ToolCallFilter } from '../../index.js';
import { chance, pick, prng, type Rng } from '../support/tool-call-filter-generate';

const CONVERSATIONS = 2_000;
const BATCHES = 4;

const TOOL_NAMES = ['weather', 'search', 'calculator', 'renamed', 'book-flight'] as const;
const TOOL_CALL_IDS = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'] as const;
const STATES = ['call', 'call', 'result', 'result', 'result', 'partial-call', 'output-error', 'approval-requested'];

function scalarOutput(rng: Rng): unknown {
  return pick(rng, [
    'Compact summary',
    '',
    '   ',
    'multi\nline',
    'unicode ✓ \u2028 "quoted"',
    42,
    0,
    -0,
    1.5,
    1e21,
    1e-7,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    true,
    false,
    null,
    undefined,
    10n,
  ]);
}

function modelOutput(rng: Rng, depth = 0): unknown {
  const kind = Math.floor(rng() * (depth > 2 ? 3 : 14));
  switch (kind) {
    case 0:
    case 1:
    case 2:
      return scalarOutput(rng);
    case 3:
      return { type: 'text', value: pick(rng, ['Compact search summary', '', 'x']) };
    case 4:
      return { type: 'text', text: pick(rng, ['Text from text field', '']) };
    case 5:
      return { type: 'json', value: { total: Math.floor(rng() * 10), nested: { ok: chance(rng, 0.5) } } };
    case 6:
      return {
        type: 'content',
        value: [
          { type: 'text', text: 'first' },
          { type: 'media', data: 'AAAA', mediaType: 'image/png' },
          { type: 'text', text: pick(rng, ['second', '']) },
        ],
      };
    case 7: {
      const length = Math.floor(rng() * 4);
      const array: unknown[] = [];
      for (let i = 0; i < length; i++) array.push(modelOutput(rng, depth + 1));
      if (chance(rng, 0.15)) array.length += 1; // a trailing hole
      return array;
    }
    case 8:
      return { a: 1, b: [1, 'two', null], c: { d: undefined, e: 'é' } };
    case 9:
      return { text: pick(rng, ['only text', '']), extra: 1 };
    case 10:
      return { value: modelOutput(rng, depth + 1) };
    case 11:
      return { type: 'text', value: modelOutput(rng, depth + 1), text: chance(rng, 0.5) ? 'fallback' : 3 };
    case 12: {
      // Only JSON.stringify sees these: a Date, a toJSON, a circular object, a bigint inside.
      const which = Math.floor(rng() * 4);
      if (which === 0) return new Date(0);
      if (which === 1) return { toJSON: () => ({ serialized: true }) };
      if (which === 2) {
        const circular: Record<string, unknown> = { name: 'loop' };
        circular.self = circular;
        return circular;
      }
      return [{ big: 1n }];
    }
    default:
      return [null, ''];
  }
}

function providerMetadata(rng: Rng): Record<string, unknown> | undefined {
  const kind = Math.floor(rng() * 8);
  if (kind <= 3) return { mastra: { modelOutput: modelOutput(rng) } };
  if (kind === 4) return { mastra: {} };
  if (kind === 5) return { mastra: { modelOutput: null } };
  if (kind === 6) return { other: { modelOutput: 'ignored' } };
  return undefined;
}

function toolInvocationPart(rng: Rng) {
  const state = pick(rng, STATES);
  const toolCallId = pick(rng, TOOL_CALL_IDS);
  const invocation: Record<string, unknown> = chance(rng, 0.1)
    ? { state, toolCall: { id: toolCallId }, toolName: pick(rng, TOOL_NAMES), args: { q: 'SECRET_ARGS' } }
    : { state, toolCallId, toolName: pick(rng, TOOL_NAMES), args: { q: 'SECRET_ARGS' } };
  if (state === 'result') invocation.result = { raw: 'SECRET_RESULT' };
  if (chance(rng, 0.05)) invocation.toolCallId = ''; // a falsy id
  const part: Record<string, unknown> = { type: 'tool-invocation', toolInvocation: invocation };
  const metadata = providerMetadata(rng);
  if (metadata) part.providerMetadata = metadata;
  if (chance(rng, 0.5)) part.createdAt = 1_700_000_000_000;
  return part;
}

function otherPart(rng: Rng) {
  switch (Math.floor(rng() * 5)) {
    case 0:
      return { type: 'text', text: pick(rng, ['Let me check.', 'Done.', '']) };
    case 1:
      return { type: 'reasoning', reasoning: 'thinking', details: [{ type: 'text', text: 'thinking' }] };
    case 2:
      return { type: 'step-start' };
    case 3:
      return { type: 'file', mimeType: 'image/png', data: 'AAAA' };
    default:
      return { type: 'data-custom', data: { n: 1 } };
  }
}

function message(rng: Rng, index: number) {
  const role = chance(rng, 0.6) ? 'assistant' : 'user';
  const base = { id: `m${index}`, role, createdAt: new Date(1_700_000_000_000 + index) };
  const shape = Math.floor(rng() * 20);
  if (shape === 0) return { ...base, content: 'plain string content' };
  if (shape === 1) return { ...base, content: { format: 2, content: 'no parts array' } };
  const partCount = shape === 2 ? 0 : Math.floor(rng() * 5) + 1;
  const parts: unknown[] = [];
  for (let i = 0; i < partCount; i++) parts.push(chance(rng, 0.55) ? toolInvocationPart(rng) : otherPart(rng));
  const content: Record<string, unknown> = { format: 2, parts };
  if (chance(rng, 0.3)) content.content = pick(rng, ['I found three relevant papers.', '   ', '', 'ok']);
  if (chance(rng, 0.35)) {
    const entries = parts
      .filter((part: any) => part.type === 'tool-invocation')
      .map((part: any) => ({ ...part.toolInvocation }));
    if (chance(rng, 0.3)) entries.push({ state: 'result', toolCallId: pick(rng, TOOL_CALL_IDS), toolName: pick(rng, TOOL_NAMES) });
    content.toolInvocations = entries;
  }
  if (chance(rng, 0.1)) content.metadata = { modelId: 'mock' };
  return { ...base, content };
}

function conversation(seed: number) {
  const rng = prng(seed);
  const historyLength = Math.floor(rng() * 6);
  const history = Array.from({ length: historyLength }, (_, i) => message(rng, i));
  // Three agent-loop steps; each adds 0–2 response messages.
  const responseSteps = [0, 1, 2].map(step =>
    Array.from({ length: Math.floor(rng() * 3) }, (_, i) => message(rng, 100 + step * 10 + i)),
  );
  return { history, responseSteps };
}

const EXCLUDES = [undefined, [], ['weather'], ['weather', 'search'], ['nonexistent'], 'weather'] as const;
const WINDOWS = [undefined, 0, 1, 2, -1, 1.5, 0.5, Number.NaN] as const;
const PRESERVE = [false, true] as const;

function stubList(all: unknown[], response: unknown[]) {
  return { get: { all: { db: () => all }, response: { db: () => response } } } as any;
}

/** Output message i → index of the same input object, or -1 for a new object. */
function identities(output: unknown, inputs: unknown[]) {
  return Array.isArray(output) ? output.map(message => inputs.indexOf(message)) : output;
}

function expectSame(reference: unknown, ours: unknown, inputs: unknown[], context: string) {
  if (!isDeepStrictEqual(ours, reference)) {
    expect(ours, context).toEqual(reference);
    expect.fail(`${context}: outputs differ`);
  }
  if (Array.isArray(reference) && !isDeepStrictEqual(identities(ours, inputs), identities(reference, inputs))) {
    expect(identities(ours, inputs), `${context}: identity`).toEqual(identities(reference, inputs));
  }
  if (Array.isArray(reference) && (ours === inputs) !== (reference === inputs)) {
    expect(ours === inputs, `${context}: same array`).toBe(reference === inputs);
  }
}

/** A deep copy that keeps functions by reference and handles cycles (structuredClone rejects functions). */
function deepClone(value: unknown, seen = new Map<object, unknown>()): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return seen.get(value);
  if (value instanceof Date) return new Date(value.getTime());
  const copy: any = Array.isArray(value) ? new Array(value.length) : {};
  seen.set(value, copy);
  for (const key of Object.keys(value)) copy[key] = deepClone((value as any)[key], seen);
  return copy;
}

async function checkConversation(seed: number) {
  const { history, responseSteps } = conversation(seed);
  const allMessages = [...history, ...responseSteps.flat()];
  const snapshot = deepClone(allMessages);
  let checks = 0;

  for (const exclude of EXCLUDES) {
    for (const preserveModelOutput of PRESERVE) {
      const options = { exclude: exclude as any, preserveModelOutput };
      const context = `seed ${seed} processInput ${JSON.stringify(options)}`;
      const list = stubList(allMessages, []);
      const reference = await new ReferenceFilter(options).processInput({ messages: [], messageList: list } as any);
      const ours = await new ToolCallFilter(options).processInput({ messages: [], messageList: list } as any);
      expectSame(reference, ours, allMessages, context);
      checks++;

      for (const filterAfterToolSteps of WINDOWS) {
        const stepOptions = { ...options, filterAfterToolSteps: filterAfterToolSteps as number | undefined };
        const referenceFilter = new ReferenceFilter(stepOptions);
        const ourFilter = new ToolCallFilter(stepOptions);
        const referenceState: Record<string, unknown> = {};
        const ourState: Record<string, unknown> = {};
        const response: unknown[] = [];
        for (let step = 0; step < responseSteps.length; step++) {
          response.push(...responseSteps[step]);
          const all = [...history, ...response];
          const list = stubList(all, [...response]);
          const stepContext = `seed ${seed} step ${step} ${JSON.stringify(stepOptions)} (window ${String(filterAfterToolSteps)})`;
          const referenceResult: any = await referenceFilter.processInputStep({ messageList: list, state: referenceState } as any);
          const ourResult: any = await ourFilter.processInputStep({ messageList: list, state: ourState } as any);
          if (!isDeepStrictEqual(Object.keys(ourResult), Object.keys(referenceResult))) {
            expect(Object.keys(ourResult), stepContext).toEqual(Object.keys(referenceResult));
          }
          if ('messages' in referenceResult) expectSame(referenceResult.messages, ourResult.messages, all, stepContext);
          if (!isDeepStrictEqual(ourState, referenceState)) expect(ourState, `${stepContext}: state`).toEqual(referenceState);
          checks++;
        }
      }
    }
  }
  expect(isDeepStrictEqual(allMessages, snapshot), `seed ${seed}: inputs were mutated`).toBe(true);
  return checks;
}

describe('ToolCallFilter matches @mastra/core@1.59.0 on random conversations', () => {
  const perBatch = CONVERSATIONS / BATCHES;
  for (let batch = 0; batch < BATCHES; batch++) {
    it(`conversations ${batch * perBatch}–${(batch + 1) * perBatch - 1}: processInput and 3-step processInputStep, all option combinations`, async () => {
      let checks = 0;
      for (let seed = batch * perBatch; seed < (batch + 1) * perBatch; seed++) {
        checks += await checkConversation(seed);
        // Let the worker answer vitest's RPC now and then.
        if (seed % 50 === 0) await new Promise(resolve => setImmediate(resolve));
      }
      // 12 processInput + 12 × 8 windows × 3 steps per conversation.
      expect(checks).toBe(perBatch * (12 + 12 * WINDOWS.length * 3));
    });
  }

  it('the generator covers every part kind, state and model-output kind', () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < CONVERSATIONS; seed++) {
      const { history, responseSteps } = conversation(seed);
      for (const message of [...history, ...responseSteps.flat()] as any[]) {
        if (typeof message.content === 'string') seen.add('string-content');
        else if (!message.content.parts) seen.add('no-parts');
        else if (message.content.parts.length === 0) seen.add('empty-parts');
        if (message.content?.toolInvocations) seen.add('toolInvocations');
        for (const part of message.content?.parts ?? []) {
          seen.add(`part:${part.type}`);
          if (part.type !== 'tool-invocation') continue;
          seen.add(`state:${part.toolInvocation.state}`);
          if (part.toolInvocation.toolCall) seen.add('legacy-id');
          const output = part.providerMetadata?.mastra?.modelOutput;
          seen.add(`output:${Array.isArray(output) ? 'array' : output === null ? 'null' : typeof output}`);
        }
      }
    }
    for (const expected of [
      'string-content', 'no-parts', 'empty-parts', 'toolInvocations', 'legacy-id',
      'part:text', 'part:reasoning', 'part:step-start', 'part:file', 'part:tool-invocation',
      'state:call', 'state:partial-call', 'state:result',
      'output:string', 'output:number', 'output:boolean', 'output:bigint', 'output:array', 'output:object', 'output:null',
    ]) {
      expect(seen, expected).toContain(expected);
    }
  });
});
