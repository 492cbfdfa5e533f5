// Large catalogs are indexed on a libuv pool thread (js/tool-search.js, OFF_THREAD_BUILD_MIN_CHARS):
// everything observable must equal an inline build, ambiguous catalogs must still throw from
// the constructor, and a pending build must neither crash nor keep Node alive.
import { afterEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Native, Reference, plain, step, stepArgs, tool, toolResultMessage } from '../support/tool-search';
import { runNode } from '../support/run-node';
import { baseTools, metatoolQueries, replicate } from '../../bench/tool-search-realistic.mjs';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require('../../js/native.js');
const NativeToolCatalog = native.NativeToolCatalog;

const base = baseTools();
const all: string[] = metatoolQueries();
const queries = Array.from({ length: 40 }, (_, i) => all[(i * 7919) % all.length]);

/** `n` realistic tools keyed by id (4,000 are ~630,000 characters: above the off-thread limit). */
function catalog(n: number, seed = 42) {
  return Object.fromEntries(replicate(base, n, seed).map((t: { id: string; description: string }) => [t.id, tool(t.id, t.description)]));
}

/**
 * Replaces the off-thread entry points js/tool-search.js calls (the addon's statics cannot be
 * spied on directly: napi defines them non-configurable); returns their call counts.
 */
function patchOffThread(impl: { buildAsync?: (...args: any[]) => unknown; overlayAsync?: (...args: any[]) => unknown } = {}) {
  const calls = { buildAsync: 0, overlayAsync: 0 };
  // A function target: a proxy of the class itself may not change its read-only statics.
  native.NativeToolCatalog = new Proxy(function NativeToolCatalogPatched() {}, {
    get(_, prop) {
      if (prop === 'buildAsync' || prop === 'overlayAsync') {
        const real = impl[prop] ?? NativeToolCatalog[prop].bind(NativeToolCatalog);
        return (...args: unknown[]) => {
          calls[prop]++;
          return real(...args);
        };
      }
      const value = Reflect.get(NativeToolCatalog, prop);
      return typeof value === 'function' ? value.bind(NativeToolCatalog) : value;
    },
    construct: (_, args) => Reflect.construct(NativeToolCatalog, args),
  });
  return calls;
}

/** Makes the next processors build inline, exactly as a small catalog does (same native build, no task). */
function forceInline() {
  return patchOffThread({
    buildAsync: (...args: unknown[]) => NativeToolCatalog.build(...args),
    overlayAsync: (...args: unknown[]) => Promise.resolve(NativeToolCatalog.overlay(...args)),
  });
}

/** Everything a model sees from one processor: system messages, search hits, load_tool answers. */
async function observe(p: any, opts: Parameters<typeof step>[1] = {}, names: string[] = []) {
  const s = await step(p, opts);
  const system = s.args.messageList.getSystemMessages().map((m: any) => m.content);
  const searches = [];
  for (const q of queries) searches.push(plain(await s.search(q)));
  const loads = [];
  if (s.result.tools.load_tool) {
    for (const name of names) loads.push(plain(await s.load({ toolName: name })));
    loads.push(plain(await s.load({ toolNames: [...names, 'no_such_tool'] })));
  }
  return { keys: s.keys, system, searches, loads };
}

afterEach(() => {
  native.NativeToolCatalog = NativeToolCatalog;
});

describe('off-thread catalog build', () => {
  const tools = catalog(4000);
  const names = [Object.keys(tools)[0], Object.keys(tools)[3999], 'weather', 'github'];

  it('a large catalog is built off-thread, a small one inline', () => {
    const calls = patchOffThread();
    new Native({ tools: catalog(500) }).dispose();
    expect(calls.buildAsync).toBe(0);
    new Native({ tools }).dispose();
    expect(calls.buildAsync).toBe(1);
    new Native({ tools: catalog(1000), search: { mode: 'enhanced' } }).dispose();
    expect(calls.buildAsync).toBe(2);
  });

  for (const options of [{}, { search: { topK: 3, minScore: 2 }, injectCatalog: true }, { search: { mode: 'enhanced' }, injectCatalog: true }]) {
    it(`a step right after construction answers as an inline-built processor: ${JSON.stringify(options)}`, async () => {
      const calls = patchOffThread();
      const offThread = new Native({ tools, ...options } as any);
      expect(calls.buildAsync).toBe(1);
      // No await between construction and the step: it has to wait for the build itself.
      const pending = observe(offThread, {}, names);
      forceInline();
      const inline = new Native({ tools, ...options } as any);
      const [a, b] = await Promise.all([pending, observe(inline, {}, names)]);
      expect(a).toEqual(b);
      expect(a.searches.filter((r: any) => r.results.length > 0).length).toBeGreaterThan(queries.length / 2);
      if ((options as any).injectCatalog) expect(a.system[1]).toContain(`\`${names[1]}\``);
      offThread.dispose();
      inline.dispose();
    }, 60_000);
  }

  it('two-byte text and a NUL inside a description: the same answers as an inline build', async () => {
    const unusual = {
      ...tools,
      天気予報: tool('天気予報', '東京の天気予報を取得する weather forecast 🌦'),
      nul_tool: tool('nul_tool', 'a description with a \0 NUL inside, about weather'),
    };
    const calls = patchOffThread();
    const offThread = new Native({ tools: unusual });
    const pending = observe(offThread, {}, ['天気予報', 'nul_tool', '天気']);
    forceInline();
    const inline = new Native({ tools: unusual });
    const [a, b] = await Promise.all([pending, observe(inline, {}, ['天気予報', 'nul_tool', '天気'])]);
    // With the NUL the joined string cannot be split: the array constructor builds inline.
    expect(calls.buildAsync).toBe(1);
    expect(a).toEqual(b);
    expect(a.loads[0].success).toBe(true);
    delete (unusual as Record<string, unknown>).nul_tool;
    const twoByte = await step(new Native({ tools: unusual }));
    const hits = (await twoByte.search('天気予報 forecast')).results.map((r: any) => r.name);
    expect(hits).toContain('天気予報');
  }, 60_000);

  it('search results equal the host (@mastra/core 1.59.0) on an off-thread-built catalog', async () => {
    const ours = await step(new Native({ tools }));
    const ref = await step(new Reference({ tools }));
    for (const q of queries.slice(0, 20)) expect(plain(await ours.search(q))).toEqual(plain(await ref.search(q)));
  }, 60_000);

  it('getLoadedToolsForRequestContext waits for the build', async () => {
    const key = Object.keys(tools)[7];
    const p = new Native({ tools, storage: 'context' });
    const stepArgs = { messages: [toolResultMessage('load_tool', { success: true, toolName: key })], tools: {} };
    const loaded = await p.getLoadedToolsForRequestContext({ stepArgs } as any);
    expect(Object.keys(loaded)).toEqual([key]);
    expect(loaded[key]).toBe(tools[key]);
  });

  describe('ambiguous catalogs above the limit still throw from the constructor, with the inline message', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['duplicate id', { ...tools, dup: tool(Object.keys(tools)[100]) }],
      ['reserved key', { ...tools, search_tools: tool('x_search') }],
      ['reserved id', { ...tools, x: tool('load_tool') }],
      ['a reserved name after a duplicate: the first problem in key order', { ...tools, dup: tool(Object.keys(tools)[5]), load_tool: tool('load_tool') }],
    ];
    for (const [name, ambiguous] of cases) {
      it(name, () => {
        const calls = patchOffThread();
        let offThread: unknown;
        try {
          new Native({ tools: ambiguous as any });
        } catch (error) {
          offThread = error;
        }
        expect(calls.buildAsync).toBe(1);
        expect(offThread).toBeInstanceOf(Error);
        forceInline();
        expect(() => new Native({ tools: ambiguous as any })).toThrow((offThread as Error).message);
        expect((offThread as Error).message).toMatch(/^ToolSearchProcessor (requires unique tool ids|tool key and callable name must not use reserved)/);
      });
    }

    it('native: the same errors as the inline build, key conflicts included', () => {
      const keys = Object.keys(tools);
      const joinedOf = (entries: Array<[string, string]>) => Buffer.from(entries.map(([k, id]) => `${k}\0${id}\0d`).join('\0'));
      const variants: Array<Array<[string, string]>> = [
        [...keys.map((k): [string, string] => [k, '']), ['other', keys[10]]],
        [...keys.map((k): [string, string] => [k, '']), [keys[10] + '_x', keys[20]], ['y', 'search_tools']],
        [...keys.map((k): [string, string] => [k, k]), ['z', 'zz'], ['zz_key', 'z']],
        // Names outside ASCII must compare and print alike.
        [...keys.map((k): [string, string] => [k, '']), ['天気_a', '天気 🌦'], ['天気_b', '天気 🌦']],
      ];
      let rejected = 0;
      for (const entries of variants) {
        for (const accept of [false, true]) {
          const joined = joinedOf(entries);
          const source = { joined: { bytes: joined, length: joined.length, count: entries.length } };
          const options = { mode: 'compatible', validate: true, acceptKeyConflicts: accept };
          let inline: string | undefined;
          try {
            NativeToolCatalog.build(source, options);
          } catch (error) {
            inline = (error as Error).message;
          }
          if (inline === undefined) {
            expect(NativeToolCatalog.buildAsync(source, options)).toBeInstanceOf(Promise);
          } else {
            rejected++;
            expect(() => NativeToolCatalog.buildAsync(source, options)).toThrow(inline);
          }
        }
      }
      expect(rejected).toBe(7); // the key conflict only without acceptKeyConflicts
    });
  });

  it('dispose() during the build: pending and later steps reject as disposed; nothing is left unhandled', async () => {
    const p = new Native({ tools });
    const pending = p.processInputStep(stepArgs());
    p.dispose();
    await expect(pending).rejects.toThrow('ToolSearchProcessor: this processor has been disposed.');
    await expect(step(p)).rejects.toThrow('ToolSearchProcessor: this processor has been disposed.');
    // A processor disposed and dropped before its build ends must not fail later.
    new Native({ tools }).dispose();
    await new Promise((r) => setTimeout(r, 200));
  });

  it('a failed off-thread build rejects every step with a clear error and is never an unhandled rejection', async () => {
    patchOffThread({ buildAsync: () => Promise.reject(new Error('worker exploded')) });
    const p = new Native({ tools });
    new Native({ tools }); // failed and never awaited
    await expect(step(p)).rejects.toThrow('ToolSearchProcessor: building the tool catalog failed: worker exploded');
    await expect(step(p)).rejects.toThrow('ToolSearchProcessor: building the tool catalog failed: worker exploded');
    await new Promise((r) => setTimeout(r, 50));
  });
});

describe('includeResolvedTools with a large resolved set', () => {
  const staticTools = catalog(50, 1);
  const resolved = catalog(4000, 7);
  const names = [Object.keys(resolved)[0], Object.keys(resolved)[3500], Object.keys(staticTools)[3]];

  for (const mode of ['compatible', 'enhanced']) {
    it(`the request catalog is built off-thread and answers as an inline one (${mode})`, async () => {
      const options = { tools: staticTools, includeResolvedTools: true, injectCatalog: true, search: { mode } };
      const calls = patchOffThread();
      const offThread = new Native(options as any);
      // Two concurrent steps with the same request tools share one build.
      const [a, again] = await Promise.all([observe(offThread, { tools: resolved }, names), observe(offThread, { tools: resolved }, names)]);
      expect(calls.overlayAsync).toBe(1);
      expect(again).toEqual(a);
      forceInline();
      const inline = new Native(options as any);
      expect(await observe(inline, { tools: resolved }, names)).toEqual(a);
      expect(a.loads[0].success).toBe(true);
      expect(a.searches.filter((r: any) => r.results.length > 0).length).toBeGreaterThan(queries.length / 2);
      offThread.dispose();
      inline.dispose();
    }, 60_000);
  }

  it('a small request catalog is built inline', async () => {
    const calls = patchOffThread();
    const p = new Native({ tools: staticTools, includeResolvedTools: true });
    const s = await step(p, { tools: catalog(20, 3) });
    expect((await s.search('weather')).results.length).toBeGreaterThan(0);
    expect(calls.overlayAsync).toBe(0);
  });

  it('a failed off-thread request build rejects the step and is not cached', async () => {
    const p = new Native({ tools: staticTools, includeResolvedTools: true });
    let failures = 1;
    const calls = patchOffThread({
      overlayAsync: (...args: unknown[]) => (failures-- > 0 ? Promise.reject(new Error('worker exploded')) : NativeToolCatalog.overlayAsync(...args)),
    });
    await expect(step(p, { tools: resolved })).rejects.toThrow("ToolSearchProcessor: building the request's tool catalog failed: worker exploded");
    const s = await step(p, { tools: resolved });
    expect(calls.overlayAsync).toBe(2);
    expect((await s.search('weather')).results.length).toBeGreaterThan(0);
  });
});

describe('process exit with a build in flight', () => {
  // 100,000 realistic tools: the build takes a few hundred ms, so each mode ends mid-build.
  const root = resolve(__dirname, '..', '..');
  const modules = `
    const { realisticTools } = await import(${JSON.stringify(pathToFileURL(join(root, 'bench/tool-search-realistic.mjs')).href)});
    const { ToolSearchProcessor } = await import(${JSON.stringify(pathToFileURL(join(root, 'index.mjs')).href)});`;
  const script = (mode: string) =>
    mode === 'worker'
      ? `
    const { Worker } = await import('node:worker_threads');
    const w = new Worker(${JSON.stringify(`(async () => {${modules}
      new ToolSearchProcessor({ tools: realisticTools(100000) });
      (await import('node:worker_threads')).parentPort.postMessage('constructed');
    })();`)}, { eval: true });
    w.on('message', async () => { await w.terminate(); console.log('terminated'); });`
      : `${modules}
    const p = new ToolSearchProcessor({ tools: realisticTools(100000) });
    console.log('constructed');
    if (${JSON.stringify(mode)} === 'exit') process.exit(0);
    if (${JSON.stringify(mode)} === 'dispose') p.dispose();`;

  for (const mode of ['unawaited', 'dispose', 'exit', 'worker']) {
    it(`${mode}: exits on its own with code 0`, async () => {
      const r = await runNode(['--input-type=module', '-e', script(mode)], 60_000);
      expect(r.stderr).toBe('');
      expect(r.signal).toBeNull(); // not killed by the timeout
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toBe(mode === 'worker' ? 'terminated' : 'constructed');
    }, 70_000);
  }
});
