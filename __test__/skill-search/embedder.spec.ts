// SkillSearchProcessor search.embedder (ours, 'hybrid'): the user's EmbeddingModel on the semantic
// side of skill search, as for tools (tool-search.embedder.spec.ts): a deterministic embedder for
// which a made-up word means "Rust", over the 32-skill fixture workspace.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { SkillSearchProcessor } from '../../index.js';
import { call, step, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';

let fx: TempWorkspace;
beforeAll(() => {
  fx = tempSkillsWorkspace();
});
afterAll(() => fx.cleanup());
afterEach(() => vi.restoreAllMocks());

function rustEmbedder(fault?: (values: string[]) => unknown) {
  const calls: string[][] = [];
  const model = {
    specificationVersion: 'v2',
    provider: 'local',
    modelId: 'rusty',
    maxEmbeddingsPerCall: 10,
    async doEmbed({ values }: { values: string[] }) {
      calls.push(values);
      const faulty = fault?.(values);
      if (faulty !== undefined) return faulty as any;
      return { embeddings: values.map((t) => [/\b(rust|blorptastic)\b/i.test(t) ? 1 : 0, 0.1, /python/i.test(t) ? 1 : 0]) };
    },
  };
  return { model, calls };
}

async function names(processor: any, query: string) {
  const { tools } = await step(processor, { threadId: 'emb' });
  return (await call(tools.search_skills, { query })).results.map((r: any) => r.name);
}

describe('SkillSearchProcessor search.embedder', () => {
  it("ranks with the user's vectors; the skills are embedded once, in batches", async () => {
    const { model, calls } = rustEmbedder();
    const processor = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid', embedder: model } } as any);
    const plain = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid' } });
    expect((await names(processor, 'blorptastic'))[0]).toBe('rust-style');
    expect((await names(plain, 'blorptastic'))[0]).not.toBe('rust-style');
    // 32 skills within maxEmbeddingsPerCall 10, then the query; a second search embeds only its query.
    expect(calls.slice(0, 4).map((c) => c.length)).toEqual([10, 10, 10, 2]);
    expect(calls[4]).toEqual(['blorptastic']);
    await names(processor, 'blorptastic again');
    expect(calls.slice(5)).toEqual([['blorptastic again']]);
  });

  it('a failing embedder: the shipped vectors answer, one warning; bad options are TypeErrors', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model } = rustEmbedder((values) => (values.length === 1 ? Promise.reject(new Error('down')) : undefined));
    const processor = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid', embedder: model } } as any);
    const plain = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid' } });
    expect(await names(processor, 'blorptastic')).toEqual(await names(plain, 'blorptastic'));
    await names(processor, 'blorptastic twice');
    expect(warn.mock.calls.filter((c) => String(c[0]).includes('SkillSearchProcessor: search.embedder failed (down)'))).toHaveLength(1);
    expect(() => new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'enhanced', embedder: model } } as any)).toThrow(
      /SkillSearchProcessor: options\.search\.embedder must be used with search\.mode 'hybrid'/,
    );
    expect(() => new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid', embedder: 42 } } as any)).toThrow(/options\.search\.embedder must be an AI SDK EmbeddingModel/);
  });
});
