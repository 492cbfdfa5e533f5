// SkillSearchProcessor against every host of the matrix (hosts/<v>): the host's own processor
// vs ours on real Workspaces (LocalFilesystem skills in temp folders). Search, load and system
// messages; what the step-0 refresh awaits and when new skills become visible; refresh
// failures (logged, never failing a step on 1.60+); request-scoped skills with many concurrent
// tenants, where no search, load or loaded state may ever cross tenants.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { fixtureSkills } from '../support/skill-search';
import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';
import {
  contextOf,
  exec,
  gate,
  PAST_STALENESS_COOLDOWN_MS,
  shiftClock,
  stepOn,
  tempRoot,
  workspaceOf,
  writeSkills,
  type SkillDef,
} from '../support/skill-search-hosts';

// Words only in SKILL.md bodies / reference files (our index also covers names and
// descriptions, README difference 7, so only these rank identically to the host).
const BODY_QUERIES = ['pipelines', 'canary releases', 'postmortem', 'quokka', 'wombat appendix', 'readiness probes', 'cursors', 'Checklist!', 'zzzz nothing'];
const LOADS = ['deployment', 'skills/logging', 'deployment', 'deploy', 'STYLE', 'kubernetes', ''];

// Two tenants. Both have a skill named `deploy` with different instructions, plus their own
// skills. Marker words appear only in one tenant's content: finding one in the other tenant's
// outputs is a cross-tenant leak.
const TENANTS: Record<'a' | 'b', SkillDef[]> = {
  a: [
    {
      name: 'deploy',
      description: 'Team guide number one',
      body: '# Deploy\n\nShip with canary releases and a rollback plan. Marker aardvark.',
      references: { 'notes.md': 'Canary notes for the aardvark team pager.' },
    },
    { name: 'alpha-runbook', description: 'Team guide number two', body: '# Runbook\n\nPage the pager on call. Canary dashboards. Marker aardvark.' },
  ],
  b: [
    { name: 'deploy', description: 'Crew manual first', body: '# Deploy\n\nShip with blue green switches and a canary ledger. Marker bonobo.' },
    { name: 'beta-books', description: 'Crew manual second', body: '# Books\n\nKeep the ledger balanced, canary audits. Marker bonobo.' },
    { name: 'beta-extra', description: 'Crew manual third', body: '# Extra\n\nRollback drills monthly. Marker bonobo.' },
  ],
};
type Tenant = keyof typeof TENANTS;
const OTHER: Record<Tenant, Tenant> = { a: 'b', b: 'a' };
const EXCLUSIVE: Record<Tenant, string> = { a: 'alpha-runbook', b: 'beta-books' };
const MARKERS: Record<Tenant, string[]> = { a: ['aardvark', 'Team guide'], b: ['bonobo', 'Crew manual'] };
const TENANT_QUERIES = ['canary', 'aardvark', 'bonobo', 'pager', 'ledger', 'rollback', 'switches'];

const REFRESH_FAILED = 'SkillSearchProcessor: skills refresh failed';

let fx: { root: string; cleanup(): void };
beforeAll(() => {
  fx = tempRoot();
  writeSkills(fx.root, 'skills', fixtureSkills().slice(0, 12));
  writeSkills(fx.root, 'tenants/a', TENANTS.a);
  writeSkills(fx.root, 'tenants/b', TENANTS.b);
  writeSkills(fx.root, 'tenants/none', []);
  writeSkills(fx.root, 'tenant-fs/a/skills', TENANTS.a);
  writeSkills(fx.root, 'tenant-fs/b/skills', TENANTS.b);
});
afterAll(() => fx.cleanup());
afterEach(() => {
  vi.restoreAllMocks();
});

const tenantOf = (requestContext: any): Tenant | undefined => requestContext?.get?.('tenant');
/** Dynamic skill paths: each tenant's own folder (1.60+ hosts give each its own scoped view). */
const tenantPaths = ({ requestContext }: { requestContext?: any }) => [`tenants/${tenantOf(requestContext) ?? 'none'}`];

/** Runs `fn` with console.warn captured; returns its result and the warn calls. */
async function withWarns<T>(fn: () => Promise<T>): Promise<{ value: T; warns: unknown[][] }> {
  const warns: unknown[][] = [];
  const spy = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    warns.push(args);
  });
  try {
    return { value: await fn(), warns };
  } finally {
    spy.mockRestore();
  }
}

/** A warn call with its error reduced to its message (each run rejects with its own Error). */
const warnShape = (args: unknown[]) => args.map((a: any) => (a && a.error instanceof Error ? { error: a.error.message } : a));

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

/** Whether `promise` settles within 60 ms. */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 60));
  return done;
}

/** Everything a tenant's request gets from one processor: search, loads, next step's system messages. */
async function tenantRequest(host: Host, processor: any, tenant: Tenant, threadId: string) {
  const requestContext = contextOf(host, { tenant, mastra__threadId: threadId });
  const first = await stepOn(host, processor, { requestContext, stepNumber: 0 });
  // In TENANT_QUERIES order (an array: query strings as keys would read as content).
  const search: any[] = [];
  for (const query of TENANT_QUERIES) search.push(await exec(first.tools.search_skills, { query }));
  const loadOwn = await exec(first.tools.load_skill, { skillName: 'deploy' });
  const loadExclusive = await exec(first.tools.load_skill, { skillName: EXCLUSIVE[tenant] });
  const loadForeign = await exec(first.tools.load_skill, { skillName: EXCLUSIVE[OTHER[tenant]] });
  const loadTypo = await exec(first.tools.load_skill, { skillName: 'deplo' });
  const next = await stepOn(host, processor, { requestContext, stepNumber: 1 });
  return { search, loadOwn, loadExclusive, loadForeign, loadTypo, system: next.system, step0System: first.system };
}

/** The host's own processor on a workspace holding only `tenant`'s skills: what that tenant must get. */
async function tenantOracle(host: Host, tenant: Tenant, bm25: boolean) {
  const processor = new host.processors.SkillSearchProcessor({ workspace: workspaceOf(host, fx.root, [`tenants/${tenant}`], { bm25 }), blockingRefresh: true });
  try {
    const once = await tenantRequest(host, processor, tenant, `oracle-${tenant}`);
    const again = await stepOn(host, processor, { requestContext: contextOf(host, { tenant, mastra__threadId: `oracle-${tenant}` }) });
    const loadOwnAgain = await exec(again.tools.load_skill, { skillName: 'deploy' });
    const loadExclusiveAgain = await exec(again.tools.load_skill, { skillName: EXCLUSIVE[tenant] });
    return { ...once, loadOwnAgain, loadExclusiveAgain };
  } finally {
    processor.dispose();
  }
}

function expectNoForeignContent(tenant: Tenant, output: unknown) {
  // A no-result message echoes the query (which may be the other tenant's marker word).
  const text = JSON.stringify(output).replace(/No skills found matching \\"[^"\\]*\\"/g, '');
  for (const marker of MARKERS[OTHER[tenant]]) expect(text, `tenant ${tenant} saw "${marker}"`).not.toContain(marker);
}

/**
 * Many interleaved concurrent requests from both tenants on one processor: every request gets
 * exactly what its tenant alone gets from the host (`oracle`), and never a foreign marker.
 * Half the requests share one thread id across tenants (the loaded-state worst case).
 */
async function concurrentTenants(host: Host, processor: any, oracle: Record<Tenant, any>, requests = 24) {
  const runs = Array.from({ length: requests }, (_, i) => {
    const tenant: Tenant = i % 2 === 0 ? 'a' : 'b';
    const threadId = i % 4 < 2 ? 'shared-thread' : `thread-${i}`;
    return tenantRequest(host, processor, tenant, threadId).then((out) => ({ tenant, out }));
  });
  const results = await Promise.all(runs);
  for (const { tenant, out } of results) {
    const want = oracle[tenant];
    expect(out.search).toEqual(want.search);
    expect([want.loadOwn, want.loadOwnAgain]).toContainEqual(out.loadOwn);
    expect([want.loadExclusive, want.loadExclusiveAgain]).toContainEqual(out.loadExclusive);
    expect(out.loadForeign).toEqual(want.loadForeign);
    expect(out.loadTypo).toEqual(want.loadTypo);
    expect(out.system).toEqual(want.system);
    expectNoForeignContent(tenant, out);
  }
  return results;
}

describe.each(HOST_VERSIONS)('SkillSearchProcessor on host @mastra/core %s', (version) => {
  const host = loadHost(version);
  const HostProcessor = host.processors.SkillSearchProcessor;
  const { SkillSearchProcessor } = host.ours;
  const caps = host.ourHost.host.capabilities;

  it('same own fields, in the same order and with the same values, as the host processor', () => {
    for (const options of [{}, { blockingRefresh: true }, { blockingRefresh: false, ttl: 0, search: { topK: 3 } }]) {
      const ws = workspaceOf(host, fx.root, ['skills']);
      const theirs = new HostProcessor({ workspace: ws, ...options });
      const ours = new SkillSearchProcessor({ workspace: ws, ...options });
      try {
        expect(Object.keys(ours)).toEqual(Object.keys(theirs));
        for (const key of Object.keys(theirs)) {
          if (key === 'cleanupIntervalId' || key === 'threadLoadedSkills' || typeof theirs[key] === 'function') continue;
          expect(ours[key], key).toEqual(theirs[key]);
        }
        expect(typeof ours.__registerMastra).toBe('function');
      } finally {
        theirs.dispose();
        ours.dispose();
      }
    }
  });

  it('options.blockingRefresh must be a boolean: anything else is a TypeError naming it', () => {
    const ws = workspaceOf(host, fx.root, ['skills']);
    for (const bad of ['yes', 1, {}, []]) {
      expect(() => new SkillSearchProcessor({ workspace: ws, blockingRefresh: bad })).toThrow(TypeError);
      expect(() => new SkillSearchProcessor({ workspace: ws, blockingRefresh: bad })).toThrow(
        /options\.blockingRefresh must be a boolean \(true or false\); received /,
      );
    }
    for (const ok of [true, false, undefined, null]) new SkillSearchProcessor({ workspace: ws, blockingRefresh: ok, ttl: 0 }).dispose();
  });

  it('thread id from the memory context: malformed MastraMemory entries fail or pass exactly as in the host', async () => {
    const outcome = async (Ctor: any, memory: unknown) => {
      const processor = new Ctor({ workspace: workspaceOf(host, fx.root, ['skills']), blockingRefresh: true });
      try {
        return await stepOn(host, processor, { requestContext: contextOf(host, { MastraMemory: memory }) }).then(
          () => 'ok',
          (e: Error) => e.message,
        );
      } finally {
        processor.dispose();
      }
    };
    const cases = ['oops', { thread: 'x' }, { thread: { id: 42 } }, { thread: { id: 't' }, resourceId: 7 }, { thread: { id: 't' } }, {}];
    const theirs = [];
    const ours = [];
    for (const memory of cases) {
      theirs.push(await outcome(HostProcessor, memory));
      ours.push(await outcome(SkillSearchProcessor, memory));
    }
    expect(ours).toEqual(theirs);
    if (caps.skillSearchMemoryThread === 'parsed') expect(theirs.filter((o) => o !== 'ok')).toHaveLength(4);
    else expect(new Set(theirs)).toEqual(new Set(['ok']));
  });

  it.each([true, false])('search, load and system messages equal the host (bm25: %s)', async (bm25) => {
    const run = async (Ctor: any) => {
      const processor = new Ctor({ workspace: workspaceOf(host, fx.root, ['skills'], { bm25 }) });
      try {
        const requestContext = contextOf(host, { mastra__threadId: 'same' });
        const first = await stepOn(host, processor, { requestContext, tools: { mine: { id: 'mine' } } });
        const searches = [];
        for (const query of BODY_QUERIES) searches.push(await exec(first.tools.search_skills, { query }));
        searches.push(await exec(first.tools.search_skills, { query: '   ' }));
        const loads = [];
        for (const skillName of LOADS) loads.push(await exec(first.tools.load_skill, { skillName }));
        const next = await stepOn(host, processor, { requestContext, stepNumber: 1 });
        const otherThread = await stepOn(host, processor, { requestContext: contextOf(host, { mastra__threadId: 'other' }) });
        return {
          toolKeys: Object.keys(first.tools),
          system0: first.system,
          searches,
          loads,
          system1: next.system,
          otherThread: otherThread.system,
          stats: processor.getStateStats().threadCount,
        };
      } finally {
        processor.dispose();
      }
    };
    const theirs = await run(HostProcessor);
    const ours = await run(SkillSearchProcessor);
    expect(ours).toEqual(theirs);
    expect(theirs.system1.length).toBe(3);
    expect(theirs.searches.filter((s: any) => s.results?.length > 0).length).toBeGreaterThan(4);
  });

  describe('step-0 refresh', () => {
    /** A static workspace whose maybeRefresh waits for `g` before doing the real refresh. */
    function gatedWorkspace() {
      const ws = workspaceOf(host, fx.root, ['skills']);
      const skills = ws.skills;
      const real = skills.maybeRefresh.bind(skills);
      const g = gate();
      const calls: Array<Promise<void>> = [];
      skills.maybeRefresh = (ctx: any) => {
        const p = g.promise.then(() => real(ctx));
        calls.push(p);
        return p;
      };
      return { ws, g, calls };
    }

    it('what processInputStep awaits: the host\'s default and blockingRefresh: true / false', async () => {
      const awaited = async (Ctor: any, options: Record<string, unknown>) => {
        const { ws, g, calls } = gatedWorkspace();
        const processor = new Ctor({ workspace: ws, ...options });
        try {
          const stepped = stepOn(host, processor, { requestContext: contextOf(host, { mastra__threadId: 'r' }) });
          const early = await settlesSoon(stepped);
          g.open();
          await stepped;
          await Promise.all(calls);
          return { early, refreshCalls: calls.length };
        } finally {
          processor.dispose();
        }
      };
      for (const options of [{}, { blockingRefresh: true }]) {
        expect(await awaited(SkillSearchProcessor, options), JSON.stringify(options)).toEqual(await awaited(HostProcessor, options));
      }
      const background = await awaited(SkillSearchProcessor, { blockingRefresh: false });
      expect(background).toEqual({ early: true, refreshCalls: 1 });
      if (caps.skillRefresh === 'background-logged') {
        // 1.60+: the host's default is background too; 1.58/1.59 hosts ignore the option (we honour it).
        expect(background).toEqual(await awaited(HostProcessor, { blockingRefresh: false }));
        expect(await awaited(HostProcessor, {})).toEqual({ early: true, refreshCalls: 1 });
      } else {
        expect(await awaited(HostProcessor, { blockingRefresh: false })).toEqual({ early: false, refreshCalls: 1 });
      }
    });

    it.each([true, false])('a skill written to disk becomes visible when the host shows it (blockingRefresh: %s)', async (blocking) => {
      const run = async (Ctor: any) => {
        const dir = tempRoot('skill-fresh-');
        writeSkills(dir.root, 'skills', fixtureSkills().slice(0, 3));
        const ws = workspaceOf(host, dir.root, ['skills']);
        const processor = new Ctor({ workspace: ws, blockingRefresh: blocking });
        const skills = ws.skills;
        const real = skills.maybeRefresh.bind(skills);
        let clock: { restore(): void } | undefined;
        try {
          const search = (tools: any) => exec(tools.search_skills, { query: 'zebra feeding' });
          const first = await stepOn(host, processor, { requestContext: contextOf(host, { mastra__threadId: 'f' }) });
          const before = await search(first.tools);
          // File mtimes come from a coarse kernel clock: write well after the discovery time.
          await new Promise((resolve) => setTimeout(resolve, 50));
          writeSkills(dir.root, 'skills', [{ name: 'zoo-keeper', description: 'Animal care', body: 'Zebra feeding schedule.' }]);
          clock = shiftClock(PAST_STALENESS_COOLDOWN_MS);
          // Request 2: its refresh is held until released, so "during" is deterministic.
          const g = gate();
          let refreshing: Promise<void> | undefined;
          skills.maybeRefresh = (ctx: any) => (refreshing = g.promise.then(() => real(ctx)));
          const stepping = stepOn(host, processor, { requestContext: contextOf(host, { mastra__threadId: 'f' }) });
          let during: unknown = 'step still waiting for the refresh';
          if (await settlesSoon(stepping)) during = await search((await stepping).tools);
          g.open();
          const second = await stepping;
          await refreshing;
          await settle();
          const after = await search(second.tools);
          const third = await stepOn(host, processor, { requestContext: contextOf(host, { mastra__threadId: 'f' }) });
          const nextRequest = await search(third.tools);
          return { before, during, after, nextRequest };
        } finally {
          clock?.restore();
          processor.dispose();
          dir.cleanup();
        }
      };
      const theirs = await run(HostProcessor);
      const ours = await run(SkillSearchProcessor);
      if (blocking || caps.skillRefresh === 'background-logged') {
        expect(ours).toEqual(theirs);
      } else {
        // 1.58/1.59 hosts always block; ours honours blockingRefresh: false there.
        expect(theirs.during).toBe('step still waiting for the refresh');
        expect({ ...ours, during: theirs.during }).toEqual(theirs);
        expect((ours.during as any).results).toEqual([]);
      }
      expect((theirs.before as any).results).toEqual([]);
      expect((theirs.after as any).results.map((r: any) => r.name)).toEqual(['zoo-keeper']);
      expect((theirs.nextRequest as any).results.map((r: any) => r.name)).toEqual(['zoo-keeper']);
    });

    it.each([
      ['default', {}],
      ['blockingRefresh: true', { blockingRefresh: true }],
      ['blockingRefresh: false', { blockingRefresh: false }],
    ])('a rejecting maybeRefresh (%s), no logger registered: same outcome and console.warn as the host', async (_label, options) => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      const run = async (Ctor: any) => {
        const ws = workspaceOf(host, fx.root, ['skills']);
        ws.skills.maybeRefresh = async () => {
          throw new Error('sandbox offline');
        };
        const processor = new Ctor({ workspace: ws, ...options });
        try {
          const { value, warns } = await withWarns(async () => {
            const outcome = await stepOn(host, processor, { requestContext: contextOf(host, { mastra__threadId: 'x' }) }).then(
              async (s) => ({ ok: true, search: await exec(s.tools.search_skills, { query: 'pipelines' }) }),
              (error: Error) => ({ ok: false, error: error.message }),
            );
            await settle();
            return outcome;
          });
          return { outcome: value, warns: warns.map(warnShape) };
        } finally {
          processor.dispose();
        }
      };
      try {
        const ours = await run(SkillSearchProcessor);
        const theirs = await run(HostProcessor);
        await settle();
        expect(unhandled).toEqual([]);
        if (caps.skillRefresh === 'blocking-throws' && (options as any).blockingRefresh === false) {
          // 1.58/1.59 hosts ignore the option and fail the step; ours refreshes in the background
          // and, like 1.60+, logs the failure instead.
          expect(theirs).toEqual({ outcome: { ok: false, error: 'sandbox offline' }, warns: [] });
          expect(ours.outcome.ok).toBe(true);
          expect(ours.warns).toEqual([[REFRESH_FAILED, { error: 'sandbox offline' }]]);
          return;
        }
        expect(ours).toEqual(theirs);
        if (caps.skillRefresh === 'background-logged') {
          expect(theirs.outcome.ok).toBe(true);
          expect(theirs.warns).toHaveLength(1);
        } else {
          expect(theirs.outcome).toEqual({ ok: false, error: 'sandbox offline' });
        }
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });
  });

  describe('request-scoped skills and tenant isolation', () => {
    const oracles: Record<string, Record<Tenant, any>> = {};
    const oracle = async (bm25: boolean) => {
      const key = String(bm25);
      oracles[key] ??= { a: await tenantOracle(host, 'a', bm25), b: await tenantOracle(host, 'b', bm25) };
      return oracles[key];
    };

    it('the tenant oracle itself: each tenant finds, loads and sees only its own skills', async () => {
      const o = await oracle(true);
      for (const tenant of ['a', 'b'] as const) {
        expect(o[tenant].loadOwn.success).toBe(true);
        expect(o[tenant].loadForeign.success).toBe(false);
        expect(o[tenant].system.some((s: string) => s.startsWith('[Skill: deploy]') && s.includes(MARKERS[tenant][0]))).toBe(true);
        expect(o[tenant].search[TENANT_QUERIES.indexOf('canary')].results.length).toBeGreaterThan(0);
        expectNoForeignContent(tenant, o[tenant]);
      }
    });

    it('a skills object offering getScoped (patched onto this host\'s Workspace): ours isolates tenants under concurrency', async () => {
      // 1.58/1.59 Workspaces never offer getScoped, so their host processor has nothing to use;
      // ours uses getScoped whenever the workspace's skills offer it, on every host.
      const views = { a: workspaceOf(host, fx.root, ['tenants/a']).skills, b: workspaceOf(host, fx.root, ['tenants/b']).skills };
      const ws = workspaceOf(host, fx.root, ['tenants/none']);
      const scopedCalls: unknown[] = [];
      ws.skills.getScoped = async ({ requestContext }: any) => {
        scopedCalls.push(requestContext);
        return views[tenantOf(requestContext)!];
      };
      const processor = new SkillSearchProcessor({ workspace: ws, blockingRefresh: true });
      try {
        await concurrentTenants(host, processor, await oracle(true));
        expect(scopedCalls.length).toBeGreaterThanOrEqual(48);
        expect(processor.getIndexStats().scopeCount).toBe(2);
      } finally {
        processor.dispose();
      }
    });

    if (caps.scopedSkills) {
      it.each([true, false])('dynamic skill paths (real Workspace.getScoped), 24 concurrent requests, bm25: %s', async (bm25) => {
        for (const options of [{}, { blockingRefresh: true }]) {
          const processor = new SkillSearchProcessor({ workspace: workspaceOf(host, fx.root, tenantPaths, { bm25 }), ...options });
          try {
            await concurrentTenants(host, processor, await oracle(bm25));
          } finally {
            processor.dispose();
          }
        }
      });

      it('the host keys loaded skills by thread only: a shared thread id shows tenant a\'s skill to tenant b; ours never does', async () => {
        const run = async (Ctor: any) => {
          const processor = new Ctor({ workspace: workspaceOf(host, fx.root, tenantPaths), blockingRefresh: true });
          try {
            const ctx = (tenant: Tenant) => contextOf(host, { tenant, mastra__threadId: 'one-thread' });
            const a = await stepOn(host, processor, { requestContext: ctx('a') });
            const loadA = await exec(a.tools.load_skill, { skillName: 'deploy' });
            const b = await stepOn(host, processor, { requestContext: ctx('b') });
            const loadB = await exec(b.tools.load_skill, { skillName: 'deploy' });
            const b1 = await stepOn(host, processor, { requestContext: ctx('b'), stepNumber: 1 });
            const a2 = await stepOn(host, processor, { requestContext: ctx('a') });
            return { loadA, bSystem: b.system, loadB, b1System: b1.system, a2System: a2.system };
          } finally {
            processor.dispose();
          }
        };
        const theirs = await run(HostProcessor);
        const ours = await run(SkillSearchProcessor);
        // The host: b's step 0 carries a's instructions, and b's load is "already loaded".
        expect(theirs.bSystem.join('\n')).toContain('aardvark');
        expect(theirs.loadB.message).toContain('already loaded');
        // Ours: b sees nothing of a's, loads its own deploy, and a still has its own.
        expect(ours.loadA).toEqual(theirs.loadA);
        expectNoForeignContent('b', [ours.bSystem, ours.loadB, ours.b1System]);
        expect(ours.bSystem).toEqual(theirs.bSystem.filter((s: string) => !s.startsWith('[Skill:')));
        expect(ours.loadB).toEqual(theirs.loadA);
        expect(ours.b1System.some((s: string) => s.startsWith('[Skill: deploy]') && s.includes('bonobo'))).toBe(true);
        expect(ours.a2System).toEqual(theirs.a2System);
        expectNoForeignContent('a', ours.a2System);
      });

      it('the host scores a scoped search over every tenant\'s documents; ours scores within the tenant', async () => {
        const run = async (Ctor: any) => {
          const processor = new Ctor({ workspace: workspaceOf(host, fx.root, tenantPaths), blockingRefresh: true });
          try {
            const a1 = await stepOn(host, processor, { requestContext: contextOf(host, { tenant: 'a' }) });
            const first = await exec(a1.tools.search_skills, { query: 'canary' });
            await stepOn(host, processor, { requestContext: contextOf(host, { tenant: 'b' }) }).then((b) => exec(b.tools.search_skills, { query: 'canary' }));
            const a2 = await stepOn(host, processor, { requestContext: contextOf(host, { tenant: 'a' }) });
            return { first, afterB: await exec(a2.tools.search_skills, { query: 'canary' }) };
          } finally {
            processor.dispose();
          }
        };
        const single = (await oracle(true)).a.search[TENANT_QUERIES.indexOf('canary')];
        const theirs = await run(HostProcessor);
        const ours = await run(SkillSearchProcessor);
        expect(theirs.first).toEqual(single);
        expect(theirs.afterB).not.toEqual(single);
        expect(theirs.afterB.results.map((r: any) => r.name)).toEqual(expect.arrayContaining(single.results.map((r: any) => r.name)));
        expect(ours).toEqual({ first: single, afterB: single });
      });

      it('a getScoped that rejects fails the step, as in the host (no fallback to unscoped skills)', async () => {
        const failing = () => {
          throw new Error('no tenant');
        };
        const outcome = async (Ctor: any) => {
          const processor = new Ctor({ workspace: workspaceOf(host, fx.root, failing) });
          try {
            return await stepOn(host, processor, { requestContext: contextOf(host, { tenant: 'a' }) }).then(
              () => 'ok',
              (e: Error) => e.message,
            );
          } finally {
            processor.dispose();
          }
        };
        const theirs = await outcome(HostProcessor);
        expect(theirs).toBe('no tenant');
        expect(await outcome(SkillSearchProcessor)).toBe(theirs);
      });
    }

    if (caps.scopedSkillSources) {
      it('a filesystem resolver (one LocalFilesystem per tenant): ours isolates 24 concurrent requests', async () => {
        const { LocalFilesystem, Workspace } = host.workspace;
        const fsOf = { a: new LocalFilesystem({ basePath: `${fx.root}/tenant-fs/a` }), b: new LocalFilesystem({ basePath: `${fx.root}/tenant-fs/b` }) };
        const ws = new Workspace({ filesystem: ({ requestContext }: any) => fsOf[tenantOf(requestContext) as Tenant], skills: ['skills'], bm25: true });
        // Oracle for this layout: the host on a static workspace over each tenant's folder.
        const layoutOracle: Record<string, any> = {};
        for (const tenant of ['a', 'b'] as const) {
          const single = new HostProcessor({ workspace: new Workspace({ filesystem: new LocalFilesystem({ basePath: `${fx.root}/tenant-fs/${tenant}` }), skills: ['skills'], bm25: true }), blockingRefresh: true });
          const once = await tenantRequest(host, single, tenant, `o-${tenant}`);
          const again = await stepOn(host, single, { requestContext: contextOf(host, { tenant, mastra__threadId: `o-${tenant}` }) });
          layoutOracle[tenant] = {
            ...once,
            loadOwnAgain: await exec(again.tools.load_skill, { skillName: 'deploy' }),
            loadExclusiveAgain: await exec(again.tools.load_skill, { skillName: EXCLUSIVE[tenant] }),
          };
          single.dispose();
        }
        const processor = new SkillSearchProcessor({ workspace: ws, blockingRefresh: true });
        try {
          await concurrentTenants(host, processor, layoutOracle as Record<Tenant, any>);
        } finally {
          processor.dispose();
        }
      });

      it('a resolver returning a fresh filesystem per request: loaded skills carry over on the thread, like the host', async () => {
        const { LocalFilesystem, Workspace } = host.workspace;
        const run = async (Ctor: any) => {
          const ws = new Workspace({
            filesystem: ({ requestContext }: any) => new LocalFilesystem({ basePath: `${fx.root}/tenant-fs/${tenantOf(requestContext)}` }),
            skills: ['skills'],
            bm25: true,
          });
          const processor = new Ctor({ workspace: ws, blockingRefresh: true });
          try {
            const ctx = () => contextOf(host, { tenant: 'a', mastra__threadId: 'fresh-fs' });
            const first = await stepOn(host, processor, { requestContext: ctx() });
            const load = await exec(first.tools.load_skill, { skillName: 'deploy' });
            const second = await stepOn(host, processor, { requestContext: ctx() });
            const again = await exec(second.tools.load_skill, { skillName: 'deploy' });
            return { load, system: second.system, again };
          } finally {
            processor.dispose();
          }
        };
        const theirs = await run(HostProcessor);
        expect(theirs.system.some((s: string) => s.startsWith('[Skill: deploy]'))).toBe(true);
        expect(await run(SkillSearchProcessor)).toEqual(theirs);
      });
    }

    it('per-scope indexes are bounded (least recently used dropped) and idle ones are swept after ttl', async () => {
      const viewOf = (n: number) => ({
        list: async () => [{ name: `skill-${n}`, path: `p/${n}`, description: `tenant ${n}` }],
        get: async (name: string) => (name === `skill-${n}` ? { name, path: `p/${n}`, description: `tenant ${n}`, instructions: `only for tenant ${n}`, references: [] } : null),
        maybeRefresh: async () => {},
      });
      const views = Array.from({ length: 40 }, (_, n) => viewOf(n));
      const workspace = { canBM25: false, skills: { getScoped: async ({ requestContext }: any) => views[requestContext.get('n')] } };
      const processor = new SkillSearchProcessor({ workspace, ttl: 40 });
      try {
        for (const round of [0, 1]) {
          for (let n = 0; n < views.length; n++) {
            const s = await stepOn(host, processor, { requestContext: contextOf(host, { n }) });
            const load = await exec(s.tools.load_skill, { skillName: `skill-${n}` });
            expect(load.success).toBe(true);
            const found = await exec(s.tools.search_skills, { query: `only for tenant ${n}` });
            expect(found.results.map((r: any) => r.name), `round ${round}`).toEqual([`skill-${n}`]);
            const foreign = await exec(s.tools.load_skill, { skillName: `skill-${(n + 1) % views.length}` });
            expect(foreign.success).toBe(false);
          }
          expect(processor.getIndexStats().scopeCount).toBeLessThanOrEqual(32);
          expect(processor.getIndexStats().scopeCount).toBeGreaterThan(0);
        }
        await new Promise((resolve) => setTimeout(resolve, 80));
        processor.cleanupNow();
        expect(processor.getIndexStats().scopeCount).toBe(0);
      } finally {
        processor.dispose();
      }
    });
  });
});
