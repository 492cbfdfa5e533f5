// Lossless strings across the boundary (issue 24): UTF-8 cannot carry a lone UTF-16 surrogate,
// so names and texts cross into Rust and out to stores through js/lossless.js. Checked:
// - the encoding is injective, reversible and well-formed for arbitrary UTF-16 (property);
// - tool keys/ids that differ only by a lone surrogate are two tools, loaded, offered and
//   resolved exactly as the host does, with every storage (in-memory, context, memoryStore(),
//   redisStore() on a real server);
// - search over texts and queries holding lone surrogates and private-use characters answers
//   exactly as the host (compatible mode), including "Did you mean";
// - SkillSearchProcessor keeps two skills whose names differ only by a lone surrogate apart.
import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { memoryStore, redisStore, SkillSearchProcessor } from '../../index.js';
import { decodeText, encodeText } from '../../js/lossless.js';
import { Native, plain, Reference, step, tool, toolResultMessage } from '../support/tool-search';
import { connectNodeRedis } from '../support/redis-client';
import { startRedisServer, type RedisServer } from '../support/redis-server';

const unit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(0x61, 0x20, 0x5f, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xe7ff, 0xe800, 0xfdd0, 0xfdd1, 0xfffd) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
);
const utf16 = fc.array(unit, { maxLength: 12 }).map((units) => String.fromCharCode(...units));

describe('lossless encoding', () => {
  it('is reversible, well-formed, survives UTF-8 and keeps distinct strings distinct', () => {
    fc.assert(
      fc.property(utf16, utf16, (a, b) => {
        const ea = encodeText(a);
        expect(decodeText(ea)).toBe(a);
        expect(ea.isWellFormed()).toBe(true);
        expect(Buffer.from(ea, 'utf8').toString('utf8')).toBe(ea);
        if (a !== b) expect(ea).not.toBe(encodeText(b));
        // Lone surrogates keep their length; only escaped characters add one unit.
        expect(ea.length).toBe(a.length + [...a.matchAll(/[\uE000-\uE7FF\uFDD0]/g)].length);
      }),
      { numRuns: 3000 },
    );
    // Well-formed text without the escaped range is passed as is (the same string).
    for (const s of ['get_weather', 'Envoie un e-mail', '天气预报', '😀 emoji', '']) expect(encodeText(s)).toBe(s);
  });
});

// Names that only a lone surrogate tells apart (the old crossing read each as U+FFFD).
const TWINS = {
  'note\uD800': tool('note\uD800', 'Write a note to the first notebook'),
  'note\uDBFF': tool('note\uDBFF', 'Write a note to the second notebook'),
  'note\uFFFD': tool('note\uFFFD', 'Write a note to the replacement notebook'),
  'pin\uE000': tool('pin\uE000', 'Pin a message (private-use name)'),
  'x\uDC00y': tool('x\uDC00y', 'Mark a \uDC00 message \uE001 with \uFDD0 flags'),
};

let server: RedisServer;
let admin: ReturnType<typeof createClient>;
beforeAll(async () => {
  server = await startRedisServer();
  admin = await connectNodeRedis(server.url);
});
afterAll(async () => {
  await admin?.close().catch(() => {});
  await server?.close();
});

const loaded = (keys: string[]) => keys.filter((k) => k !== 'search_tools' && k !== 'load_tool');

describe.each(['in-memory', 'context', 'memoryStore', 'redisStore'])('tool names that differ only by a lone surrogate (%s)', (storage) => {
  const options = () =>
    storage === 'memoryStore'
      ? { storage: memoryStore() }
      : storage === 'redisStore'
        ? { storage: redisStore(admin, { keyPrefix: `lossless-${Date.now()}-${Math.random()}:` }) }
        : { storage };

  it('load, offer and resolve exactly as the host', async () => {
    const ours = new Native({ tools: TWINS, ...options() } as any);
    const ref = new Reference({ tools: TWINS, ...(storage === 'context' ? { storage: 'context' } : {}) } as any);
    for (const name of ['note\uD800', 'note\uDBFF', 'pin\uE000', 'x\uDC00y', 'note\uDFFF', 'pin\uFDD0\uE000']) {
      const thread = `t-${encodeURIComponent(encodeText(name))}`;
      const [a, b] = [await step(ref, { threadId: thread }), await step(ours, { threadId: thread })];
      const [ra, rb] = [await a.load({ toolName: name }), await b.load({ toolName: name })];
      expect(plain(rb)).toEqual(plain(ra));
      // Context storage reads its state back from the conversation's load_tool results.
      const messages = storage === 'context' ? [toolResultMessage('load_tool', ra)] : [];
      const [na, nb] = [await step(ref, { threadId: thread, messages }), await step(ours, { threadId: thread, messages })];
      expect(nb.keys).toEqual(na.keys);
      expect(loaded(nb.keys)).toEqual(ra.success ? [name] : []);
    }
  });
});

describe('search over lone surrogates and private-use characters (compatible mode) equals the host', () => {
  it('search_tools and "Did you mean"', async () => {
    const [a, b] = [await step(new Reference({ tools: TWINS })), await step(new Native({ tools: TWINS }))];
    for (const q of ['note\uD800', 'note\uDBFF', 'note\uFFFD', 'note', 'pin\uE000', 'a \uDC00 message', '\uE001 flags', '\uFDD0', 'x\uDC00y', '\uD800']) {
      expect(plain(await b.search(q))).toEqual(plain(await a.search(q)));
    }
    for (const name of ['note', 'pin', 'x\uDC00', 'NOTE\uD800', 'missing\uDBFF']) {
      expect(plain(await b.load({ toolName: name }))).toEqual(plain(await a.load({ toolName: name })));
    }
  });
});

describe('SkillSearchProcessor', () => {
  it('two skills whose names differ only by a lone surrogate stay two skills', async () => {
    const defs = [
      { name: 'deploy\uD800', description: 'Deploy to the first region', instructions: 'Use region one.' },
      { name: 'deploy\uDBFF', description: 'Deploy to the second region', instructions: 'Use region two.' },
    ];
    const skills = {
      list: async () => defs.map(({ name, description }) => ({ name, description, path: `/skills/${encodeURIComponent(encodeText(name))}` })),
      get: async (name: string) => {
        const d = defs.find((s) => s.name === name);
        return d && { ...d, path: `/skills/x`, references: [], source: { type: 'local', projectPath: '/skills' } };
      },
      has: async (name: string) => defs.some((s) => s.name === name),
      maybeRefresh: async () => {},
    };
    for (const mode of ['compatible', 'enhanced'] as const) {
      const processor = new SkillSearchProcessor({ workspace: { skills } as any, search: mode === 'enhanced' ? { mode } : undefined } as any);
      const args = () => ({ tools: {}, messageList: { addSystem() {} }, requestContext: undefined, messages: [], stepNumber: 0 });
      const first = await processor.processInputStep(args() as any);
      const found: any = await first.tools.search_skills.execute({ query: 'deploy region' }, {} as any);
      expect(found.results.map((r: any) => r.name).sort()).toEqual(['deploy\uD800', 'deploy\uDBFF'].sort());
      expect(await first.tools.load_skill.execute({ skillName: 'deploy\uDBFF' }, {} as any)).toMatchObject({ success: true });
      const system: string[] = [];
      await processor.processInputStep({ ...args(), messageList: { addSystem: (m: string) => system.push(m) } } as any);
      expect(system.filter((m) => m.startsWith('[Skill: '))).toEqual([expect.stringContaining('Use region two.')]);
    }
  });
});
