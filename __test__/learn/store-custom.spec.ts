// learn.store with a custom store (issue 42): any object implementing the documented async
// contract (docs/learning.md, "Stores") shares learning between processors; its faults follow
// the same rules as Redis's (a slow or failing store never fails or stalls a generation; one
// warning per outage; recovery by itself); bad store objects and bad redisLearnStore options
// are TypeErrors naming the option. Real Agents with a scripted model; two processors in one
// worker stand for two processes (each has its own origin in the log).
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import { ToolSearchProcessor, redisLearnStore } from '../../index.js';
import { scriptedModel, type ModelCall, type ScriptStep } from '../support/scripted-model';
import { solve, answer, DINNER, DINNER_AGAIN, RATES, RATES_AGAIN } from '../support/learn';

const { NativeLearnedIndex } = require('../../js/native.js');

/** The payload the native index keeps for `text` (lexical side; no model): what a record carries. */
function payloadOf(text: string): string {
  const index = new NativeLearnedIndex({ global: false, maxExamples: 10, maxBytes: 1e6, halfLifeMs: 1e9, minResources: 2, minSimilarity: 0.2 }, null);
  return index.exportExample(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function catalog() {
  const make = (id: string, description: string) => createTool({ id, description, inputSchema: z.object({}).passthrough(), execute: async () => ({ ok: id }) });
  return {
    book_table: make('book_table', 'Reserve a table at a restaurant.'),
    get_weather: make('get_weather', 'Get the current weather and forecast for a city.'),
    send_email: make('send_email', 'Send an email message to a recipient.'),
    convert_currency: make('convert_currency', 'Convert an amount between currencies.'),
  };
}

async function turn(processor: any, text: string | any[], script: ScriptStep[], resource = 'alice', thread = `t-${Math.random()}`) {
  const log: ModelCall[] = [];
  const agent = new Agent({ id: 'learn', name: 'learn', instructions: 'Help.', model: scriptedModel(script, log) as any, inputProcessors: [processor] });
  const requestContext = new RequestContext<any>();
  requestContext.set('mastra__threadId', thread);
  requestContext.set('mastra__resourceId', resource);
  const result = await agent.generate(text, { maxSteps: 5, requestContext });
  return { log, result };
}


/** A plain-object store implementing the contract over an array (batches of 2, no `more` flag). */
function arrayStore() {
  const log: Array<{ seq: number; record: any }> = [];
  let seq = 0;
  const calls: string[] = [];
  return {
    log,
    calls,
    async append(record: any) {
      calls.push('append');
      log.push({ seq: ++seq, record: JSON.parse(JSON.stringify(record)) });
    },
    async read(cursor: string | undefined) {
      calls.push('read');
      const after = cursor === undefined ? 0 : Number(cursor);
      const batch = log.filter((e) => e.seq > after).slice(0, 2);
      return { records: batch.map((e) => e.record), cursor: batch.length > 0 ? String(batch[batch.length - 1].seq) : cursor };
    },
    async forgetResource(resource: string, { tombstone }: any) {
      const before = log.length;
      const kept = log.filter((e) => e.record.resource !== resource);
      log.splice(0, log.length, ...kept);
      log.push({ seq: ++seq, record: tombstone });
      return before - kept.length;
    },
    async clear({ tombstone }: any) {
      log.splice(0, log.length, { seq: ++seq, record: tombstone });
    },
  };
}

function processorOn(store: any, events: any[] = []) {
  return new ToolSearchProcessor({ tools: catalog(), search: { mode: 'enhanced' }, preload: { onPreload: (e: any) => events.push(e) }, learn: { store } });
}

/** A processor whose outage warnings are collected. */
function watched(store: any) {
  const processor = processorOn(store);
  const warnings: string[] = [];
  processor.__registerMastra({ getLogger: () => ({ warn: (m: string) => warnings.push(m), info() {}, error() {}, debug() {} }) } as any);
  return { processor, warnings };
}

afterEach(() => vi.restoreAllMocks());

describe('learn.store: a custom store', () => {
  it('a plain object implementing the contract shares learning between processors', async () => {
    const store = arrayStore();
    const events: any[] = [];
    const a = processorOn(store);
    const b = processorOn(store, events);
    await turn(a, DINNER, solve('book_table'));
    expect(store.log.map((e) => e.record)).toEqual([
      expect.objectContaining({ type: 'example', partition: 'r:alice', resource: 'alice', tool: 'book_table', time: expect.any(Number), origin: expect.any(String) }),
    ]);
    expect(store.log[0].record.payload).toBe(payloadOf(DINNER));
    // (hashed terms and counts, not the request's text)
    expect(Buffer.from(store.log[0].record.payload, 'base64').toString('latin1')).not.toMatch(/Luigi|dinner/i);
    const { log } = await turn(b, DINNER_AGAIN, answer);
    expect(log[0].tools).toContain('book_table');
    expect(events[0].tools.find((t: any) => t.name === 'book_table')).toMatchObject({ learned: true });
    expect(b.getLearningStats()).toEqual({ scope: 'resource', examples: 1, seeds: 0, resources: 1, bytes: expect.any(Number), store: 'custom', lastOutage: null });
    // several batches (of 2) are read in one step; A does not apply its own records twice
    for (const text of ['book a table for six tonight', 'reserve a table for two at noon', 'a table for three on monday']) await turn(b, text, solve('book_table'));
    await turn(a, 'hello', answer);
    expect(a.getLearningStats()).toMatchObject({ examples: 4 });
    expect(b.getLearningStats()).toMatchObject({ examples: 4 });
    // deletion: the store's count, and the other processor drops the resource at its next step
    await expect(a.forgetLearnedResource('alice')).resolves.toBe(4);
    expect(a.getLearningStats()).toMatchObject({ examples: 0 });
    expect((await turn(b, DINNER_AGAIN, answer)).log[0].tools).not.toContain('book_table');
    expect(b.getLearningStats()).toMatchObject({ examples: 0 });
    await turn(a, RATES, solve('convert_currency'), 'carol');
    expect((await turn(b, RATES_AGAIN, answer, 'carol')).log[0].tools).toContain('convert_currency');
    await b.forgetAllLearned();
    expect(store.log.map((e) => e.record.type)).toEqual(['clear']);
    expect((await turn(a, RATES_AGAIN, answer, 'carol')).log[0].tools).not.toContain('convert_currency');
    a.dispose();
    b.dispose();
  });

  it('a thread continued in another process teaches nothing twice: its history is not learned again', async () => {
    const store = arrayStore();
    const a = processorOn(store);
    const b = processorOn(store);
    // the thread as memory hands it back: a call made a minute ago, then a new message
    const at = Date.now() - 60_000;
    const history = () => [
      { id: 'm1', role: 'user', createdAt: new Date(at), content: { format: 2, parts: [{ type: 'text', text: DINNER }] } },
      { id: 'm2', role: 'assistant', createdAt: new Date(at + 1000), content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'call-1', toolName: 'book_table', args: {}, result: { ok: 'book_table' } } }] } },
      { id: 'm3', role: 'assistant', createdAt: new Date(at + 2000), content: { format: 2, parts: [{ type: 'text', text: 'Booked.' }] } },
    ];
    const next = (id: string, text: string) => ({ id, role: 'user', createdAt: new Date(), content: { format: 2, parts: [{ type: 'text', text }] } });
    const examples = () => store.log.filter((e) => e.record.type === 'example').length;
    await turn(a, [...history(), next('m4', 'thanks!')] as any, answer, 'alice', 'thread-1');
    expect(examples()).toBe(1);
    expect(a.getLearningStats()).toMatchObject({ examples: 1 });
    // the next message lands on another process, and then on a restarted first one
    await turn(b, [...history(), next('m5', 'great, thanks')] as any, answer, 'alice', 'thread-1');
    const restarted = processorOn(store);
    await turn(restarted, [...history(), next('m6', 'see you')] as any, answer, 'alice', 'thread-1');
    expect(examples()).toBe(1);
    expect(b.getLearningStats()).toMatchObject({ examples: 1 });
    // a later call of the same request is one more use, recorded once
    await turn(b, DINNER, solve('book_table'));
    expect(examples()).toBe(2);
    for (const p of [a, b, restarted]) p.dispose();
  });

  it('records of another scope, seeds and unreadable payloads from the log are not applied', async () => {
    const store = arrayStore();
    const payload = payloadOf(DINNER);
    const base = { type: 'example', resource: 'mallory', tool: 'book_table', time: Date.now(), payload, origin: 'elsewhere' };
    await store.append({ ...base, partition: '\u0000global' });
    await store.append({ ...base, partition: '\u0000seed' });
    await store.append({ ...base, partition: 'r:someone-else' });
    await store.append({ ...base, partition: 'r:mallory', payload: 'bm90IGEgcGF5bG9hZA==' });
    await store.append({ ...base, partition: 'r:mallory', tool: 42 });
    await store.append({ ...base, partition: 'r:mallory', time: 'now' });
    await store.append(null);
    const processor = processorOn(store);
    await turn(processor, DINNER_AGAIN, answer, 'mallory');
    expect(processor.getLearningStats()).toMatchObject({ examples: 0, seeds: 0 });
    // ...while a well-formed one is
    await store.append({ ...base, partition: 'r:mallory' });
    expect((await turn(processor, DINNER_AGAIN, answer, 'mallory')).log[0].tools).toContain('book_table');
    processor.dispose();
  });

  it('a store that hangs never stalls a generation: each wait is bounded, then steps stop waiting', async () => {
    const store: any = arrayStore();
    store.read = () => new Promise(() => {});
    store.timeoutMs = 200;
    const { processor, warnings } = watched(store);
    const started = Date.now();
    const { result } = await turn(processor, DINNER, solve('book_table'));
    expect(result.text).toBe('done');
    // (three steps: the first waits the bound, the outage then spares the others)
    expect(Date.now() - started).toBeLessThan(2000);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/learning store read failed \(state store read timed out after 200 ms\)/);
    expect(processor.getLearningStats()).toMatchObject({ examples: 0 });
    processor.dispose();
  });

  it('a failing store: generations succeed, nothing is learned, one warning per outage; recovery by itself', async () => {
    const store: any = arrayStore();
    const read = store.read;
    const append = store.append;
    let down = false;
    let readsAnswered = 0;
    store.read = async (cursor: any) => {
      if (down) throw new Error('store unreachable');
      readsAnswered++;
      return read(cursor);
    };
    store.append = async (record: any) => {
      if (down) throw new Error('store unreachable');
      return append(record);
    };
    const { processor, warnings } = watched(store);
    await turn(processor, DINNER, solve('book_table'));
    expect(processor.getLearningStats()).toMatchObject({ examples: 1, lastOutage: null });

    down = true;
    for (let i = 0; i < 3; i++) {
      const { result } = await turn(processor, RATES, solve('convert_currency'));
      expect(result.text).toBe('done');
    }
    expect(processor.getLearningStats()).toMatchObject({ examples: 1 });
    expect(store.log).toHaveLength(1);
    expect(warnings).toEqual([
      'ToolSearchProcessor: learning store read failed (store unreachable); learning is paused (the index keeps what it holds, nothing new is learned) until the store answers again.',
    ]);
    const outage = processor.getLearningStats()!.lastOutage;
    expect(Date.parse(outage!)).toBeGreaterThan(0);

    down = false;
    const answered = readsAnswered;
    // no traffic needed: the background retry reads again (backoff from 250 ms)...
    await vi.waitFor(() => expect(readsAnswered).toBeGreaterThan(answered), { timeout: 10_000, interval: 50 });
    // ...so the very next task is learned
    await turn(processor, RATES, solve('convert_currency'));
    expect(processor.getLearningStats()).toMatchObject({ examples: 2 });
    expect(store.log.map((e: any) => e.record.tool)).toEqual(['book_table', 'convert_currency']);
    expect(warnings).toHaveLength(1);
    // a second outage warns again, once
    down = true;
    await turn(processor, RATES, answer);
    await turn(processor, RATES, answer);
    expect(warnings).toHaveLength(2);
    expect(processor.getLearningStats()!.lastOutage! >= outage!).toBe(true);
    processor.dispose();
  });

  it('a failing append starts an outage too (and only one warning)', async () => {
    const store: any = arrayStore();
    store.append = async () => {
      throw new Error('read-only replica');
    };
    const { processor, warnings } = watched(store);
    await turn(processor, DINNER, solve('book_table'));
    await turn(processor, RATES, solve('convert_currency'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^ToolSearchProcessor: learning store append failed \(read-only replica\)/);
    processor.dispose();
  });

  it('forget* reject with a clear error when the store cannot delete (the index still forgot)', async () => {
    const store: any = arrayStore();
    store.forgetResource = async () => {
      throw new Error('no permission');
    };
    store.clear = async () => {
      throw new Error('no permission');
    };
    const processor = processorOn(store);
    await turn(processor, DINNER, solve('book_table'));
    await expect(processor.forgetLearnedResource('alice')).rejects.toThrow(/learning store forgetResource failed \(no permission\); this process's index forgot/);
    expect(processor.getLearningStats()).toMatchObject({ examples: 0 });
    await expect(processor.forgetAllLearned()).rejects.toThrow(/learning store clear failed \(no permission\)/);
    processor.dispose();
  });

  it('dispose() calls the store close() and stops the retry', async () => {
    const store: any = arrayStore();
    let closed = 0;
    store.close = () => void closed++;
    const processor = processorOn(store);
    processor.dispose();
    await sleep(10);
    expect(closed).toBe(1);
  });
});

describe('learn.store: bad stores and options', () => {
  const make = (learn: unknown) => () => new ToolSearchProcessor({ tools: catalog(), learn } as any);
  const shape = "{ append(), read(), forgetResource(), clear() } returning promises, close() optional";

  it('a bad store object is a TypeError naming options.learn.store', () => {
    const { append, read, forgetResource, clear } = arrayStore();
    expect(make({ store: 'redis' })).toThrow(new TypeError(`ToolSearchProcessor: options.learn.store must be 'in-memory' or a learning store ${shape} such as redisLearnStore({ client }) (docs/learning.md); received the string "redis".`));
    expect(make({ store: { append, read, forgetResource } })).toThrow(/options\.learn\.store must be .*; received an object with no clear\(\) method\./);
    expect(make({ store: { append, read, forgetResource, clear, close: 1 } })).toThrow(/received an object whose close is the number 1, not a function/);
    expect(make({ store: { append, read, forgetResource, clear, timeoutMs: 0 } })).toThrow(/received an object whose timeoutMs is the number 0/);
    // the synchronous in-process contract of the first version is not a shared store
    expect(make({ store: { add() {}, neighbours() {}, forgetResource() {}, clear() {}, stats() {} } })).toThrow(/received an object with no append\(\) method/);
  });

  it('redisLearnStore: bad options are TypeErrors naming the option; an unknown key is warned once', () => {
    const client = { sendCommand: async () => null, isOpen: true };
    expect(() => redisLearnStore(undefined as any)).toThrow(/^redisLearnStore: options must be an object \{ client, keyPrefix\?/);
    expect(() => redisLearnStore({} as any)).toThrow(new TypeError("redisLearnStore: options.client must be a connected node-redis client (createClient() from 'redis') or an ioredis client; received undefined."));
    expect(() => redisLearnStore({ client: { isCluster: true } } as any)).toThrow(/options\.client must be a standalone node-redis or ioredis client/);
    expect(() => redisLearnStore({ client, keyPrefix: '' } as any)).toThrow(/options\.keyPrefix must be a non-empty string; received the string ""/);
    expect(() => redisLearnStore({ client, maxRecords: 0 } as any)).toThrow(/options\.maxRecords must be a positive integer; received the number 0/);
    expect(() => redisLearnStore({ client, timeoutMs: -1 } as any)).toThrow(/options\.timeoutMs must be a positive finite number/);
    expect(() => redisLearnStore({ client, batchSize: 1.5 } as any)).toThrow(/options\.batchSize must be a positive integer/);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    redisLearnStore({ client, maxRecord: 10 } as any);
    redisLearnStore({ client, maxRecord: 10, prefix: 'x:' } as any);
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      'redisLearnStore: unknown option `maxRecord` is ignored. Did you mean `maxRecords`?',
      'redisLearnStore: unknown option `prefix` is ignored. Known options: `client`, `keyPrefix`, `maxRecords`, `timeoutMs`, `batchSize`.',
    ]);
  });

  it('redisLearnStore: a bad record or cursor is a TypeError naming it (before any round trip)', async () => {
    const sent: unknown[] = [];
    const store = redisLearnStore({ client: { sendCommand: async (args: unknown) => (sent.push(args), null), isOpen: true } as any });
    await expect(store.append({ partition: 'p', resource: 'r', tool: 't', time: 1 } as any)).rejects.toThrow(new TypeError('redisLearnStore: record.payload must be a string; received undefined.'));
    await expect(store.append({ type: 'gone', partition: 'p', resource: 'r', tool: 't', time: 1, payload: '' } as any)).rejects.toThrow(/record\.type must be 'example', 'forget' or 'clear'/);
    await expect(store.append({ partition: 'p', resource: 'r', tool: 't', time: NaN, payload: '' })).rejects.toThrow(/record\.time must be a finite number/);
    await expect(store.append({ partition: 'p', resource: 'r', tool: 't', time: 1, payload: '', vectorModel: 42 } as any)).rejects.toThrow(/record\.vectorModel must be a string/);
    await expect(store.read('not-a-cursor')).rejects.toThrow(/read\(\) cursor must be undefined or a cursor read\(\) returned/);
    expect(sent).toEqual([]);
    // a reply of the wrong shape is a failure, not "nothing to read"
    await expect(store.read(undefined)).rejects.toThrow(/redisLearnStore: read answered null, not a list of stream entries/);
  });

  it("a record's vector serves only processes with the same model (vectorModel): another model's, or none, keeps its terms", async () => {
    const store = arrayStore();
    const on = (search: any) => new ToolSearchProcessor({ tools: catalog(), search, preload: true, learn: { store } });
    const writer = on({ mode: 'hybrid' });
    const same = on({ mode: 'hybrid' });
    // the shipped model with one weight changed: another model (a deployment mid-upgrade)
    const dir = mkdtempSync(join(tmpdir(), 'mnp-model-'));
    const bytes = readFileSync(require.resolve('mastra-native-processors-model-multilingual/model.bin'));
    // (the middle of the file is in its table of token vectors)
    bytes[bytes.length >> 1] ^= 1;
    writeFileSync(join(dir, 'model.bin'), bytes);
    const other = on({ mode: 'hybrid', model: dir });
    const lexical = on({ mode: 'enhanced' });
    await turn(writer, DINNER, solve('book_table'));
    expect(store.log[0].record.vectorModel).toMatch(/^[0-9a-f]{16}$/);
    for (const p of [same, other, lexical]) expect((await turn(p, DINNER_AGAIN, answer)).log[0].tools, 'the terms still serve').toContain('book_table');
    const bytesOf = (p: any) => p.getLearningStats().bytes;
    expect(bytesOf(same)).toBe(bytesOf(writer));
    // (the int8 vector, one byte per dimension, is not kept)
    expect(bytesOf(writer) - bytesOf(other)).toBeGreaterThanOrEqual(256);
    expect(bytesOf(lexical)).toBe(bytesOf(other));
    // a record without vectorModel (written by hand, or by an older version) keeps its terms only
    const late = on({ mode: 'hybrid' });
    store.log.splice(0, store.log.length, { seq: 99, record: { ...store.log[0].record, vectorModel: undefined, origin: 'elsewhere' } });
    await turn(late, 'hello', answer);
    expect(bytesOf(late)).toBe(bytesOf(other));
    for (const p of [writer, same, other, lexical, late]) p.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a record read back is learned exactly as the example its process learned; an unreadable payload is refused', () => {
    const index = new NativeLearnedIndex({ global: false, maxExamples: 10, maxBytes: 1e6, halfLifeMs: 1e9, minResources: 2, minSimilarity: 0.2 }, null);
    expect(index.addPayload('r:alice', 'alice', 'book_table', Date.now(), payloadOf(DINNER), false)).toBe(true);
    expect(index.votes(['r:alice'], 'alice', DINNER_AGAIN, Date.now()).tools).toEqual(['book_table']);
    for (const bad of ['', 'AAAAAA==', 'bm90IGEgcGF5bG9hZA==', payloadOf(DINNER).slice(0, 12)]) expect(index.addPayload('r:alice', 'alice', 'x', Date.now(), bad, false)).toBe(false);
    expect(index.stats()).toMatchObject({ examples: 1 });
  });
});
