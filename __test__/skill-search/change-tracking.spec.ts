// Change tracking of Mastra's skills objects (issue 12 item 4): a re-check reads the skills
// (skills.list(), ~120 ms at 1,000 skills, and get() per skill) only after a refresh/addSkill/
// removeSkill on the skills object, and every such change is seen at the next search, even
// within a request; with nothing changed it makes no skills call.
//
// On every host of the matrix, the host's own processor and ours run on the SAME Workspace (so
// the same skills object) and answer every query identically after each kind of change; the
// list() calls of ours are counted on the skills class's prototype (the wrappers call it).
// Then, with stand-in skills classes, what tracking needs: the wrappers' transparency, objects
// that are not tracked (custom, subclassed, patched) keeping the 5 s full check, a failed
// refresh suspending the trust, and a 1.58-style refresh whose concurrent reads rediscover
// after it settles.
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { SkillSearchProcessor } from '../../index.js';
import { call, PAST_FULL_CHECK_MS, step } from '../support/skill-search';
import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';
import {
  contextOf,
  exec,
  PAST_STALENESS_COOLDOWN_MS,
  shiftClock,
  stepOn,
  tempRoot,
  workspaceOf,
  writeSkills,
  type SkillDef,
} from '../support/skill-search-hosts';

const BASE: SkillDef[] = [
  { name: 'deployment', description: 'Ship it', body: '# Deploy\n\nUse CI/CD pipelines and canary releases.' },
  { name: 'logging', description: 'Logs', body: '# Logs\n\nEmit json lines with correlation ids.' },
  { name: 'incident-response', description: 'Outages', body: '# Incidents\n\nPage the on-call and write a postmortem.' },
  {
    name: 'kubernetes-ops',
    description: 'Clusters',
    body: '# K8s\n\nSet readiness probes and resource limits.',
    references: { 'notes.md': 'Wombat appendix on pod spreading.' },
  },
];
const ZEBRA: SkillDef = { name: 'zebra-care', description: 'Zebras', body: '# Zebras\n\nBrush the stripes gently.' };
// Body words only (the host indexes bodies and references; ours names and descriptions too).
const QUERIES = ['pipelines', 'stripes', 'postmortem', 'wombat appendix', 'zeppelin', 'correlation'];

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  vi.restoreAllMocks();
});

/** Result names of one search_skills call after a step of `processor`. */
async function namesOn(host: Host, processor: any, query: string, stepNumber: number, requestContext?: any) {
  const { tools } = await stepOn(host, processor, { stepNumber, requestContext });
  return (await exec(tools.search_skills, { query })).results.map((r: any) => r.name);
}

describe.each(HOST_VERSIONS)('change tracking on host @mastra/core %s', (version) => {
  const host = loadHost(version);

  /** A workspace over BASE, the host's processor and ours on it, and ours' list() counter. */
  function setup(options: Record<string, unknown> = {}) {
    const { root, cleanup } = tempRoot('skill-tracking-');
    writeSkills(root, 'skills', BASE);
    const ws = workspaceOf(host, root, ['skills']);
    const theirs = new host.processors.SkillSearchProcessor({ workspace: ws, ...options });
    const ours = new host.ours.SkillSearchProcessor({ workspace: ws, ...options });
    cleanups.push(cleanup, () => ours.dispose(), () => theirs.dispose?.());
    const skills = ws.skills;
    const list = vi.spyOn(Object.getPrototypeOf(skills), 'list');
    const get = vi.spyOn(Object.getPrototypeOf(skills), 'get');
    /** Ours' names for `query` and how many list() and get() calls that step + search made. */
    const oursNames = async (query: string, stepNumber: number) => {
      const lists = list.mock.calls.length;
      const gets = get.mock.calls.length;
      const names = await namesOn(host, ours, query, stepNumber);
      return { names, lists: list.mock.calls.length - lists, gets: get.mock.calls.length - gets };
    };
    /** Every query: ours (step `stepNumber`) answers what the host's processor answers. */
    const expectSameAsHost = async (stepNumber: number) => {
      for (const q of QUERIES) {
        const mine = (await oursNames(q, stepNumber)).names;
        expect(mine, q).toEqual(await namesOn(host, theirs, q, stepNumber));
      }
    };
    return { root, ws, skills, ours, theirs, oursNames, expectSameAsHost };
  }

  it('addSkill() of a new skill: the next search finds it (same request, no step 0), as the host does; then no list() while nothing changes', async () => {
    const { root, skills, ours, oursNames, expectSameAsHost } = setup();
    await expectSameAsHost(0);
    // A new request with nothing changed: its re-check makes no skills call at all.
    expect(await oursNames('pipelines', 0)).toEqual({ names: ['deployment'], lists: 0, gets: 0 });

    writeSkills(root, 'skills', [ZEBRA]);
    await skills.addSkill('skills/zebra-care');
    const found = await oursNames('stripes', 1);
    expect(found.names).toEqual(['zebra-care']);
    expect(found.lists).toBe(1);
    await expectSameAsHost(1);
    expect(ours.getIndexStats()).toMatchObject({ skillCount: 5 });

    // Unchanged since: later requests (even past the 5 s interval) re-check without a call.
    const clock = shiftClock(PAST_FULL_CHECK_MS);
    try {
      expect(await oursNames('stripes', 0)).toEqual({ names: ['zebra-care'], lists: 0, gets: 0 });
      expect(await oursNames('pipelines', 0)).toEqual({ names: ['deployment'], lists: 0, gets: 0 });
    } finally {
      clock.restore();
    }
  });

  it('addSkill() updating a known skill in place and removeSkill(): both seen at the next search, as the host sees them', async () => {
    const { root, skills, oursNames, expectSameAsHost } = setup();
    await expectSameAsHost(0);
    writeSkills(root, 'skills', [{ ...BASE[0], body: '# Deploy\n\nShip releases by zeppelin.' }]);
    await skills.addSkill('skills/deployment');
    expect((await oursNames('zeppelin', 1)).names).toEqual(['deployment']);
    expect((await oursNames('pipelines', 1)).names).toEqual([]);
    await expectSameAsHost(1);

    await skills.removeSkill('incident-response');
    expect((await oursNames('postmortem', 1)).names).toEqual([]);
    await expectSameAsHost(1);
  });

  it('an edit on disk is unseen until a refresh (as in the host); refresh() then shows it at the next search', async () => {
    const { root, skills, oursNames, expectSameAsHost } = setup();
    await expectSameAsHost(0);
    writeSkills(root, 'skills', [{ ...BASE[1], body: '# Logs\n\nLog by zeppelin.' }, ZEBRA]);
    // No refresh yet: both still answer from the last discovery.
    expect((await oursNames('zeppelin', 1)).names).toEqual([]);
    await expectSameAsHost(1);
    await skills.refresh();
    expect((await oursNames('zeppelin', 1)).names).toEqual(['logging']);
    expect((await oursNames('stripes', 1)).names).toEqual(['zebra-care']);
    await expectSameAsHost(1);
  });

  it("the step-0 staleness refresh (maybeRefresh of a folder newer than the last discovery) is seen by that request's search", async () => {
    const { root, oursNames, ours, theirs } = setup({ blockingRefresh: true });
    expect((await oursNames('stripes', 0)).names).toEqual([]);
    writeSkills(root, 'skills', [ZEBRA]);
    const touched = new Date(Date.now() + 1_000);
    utimesSync(join(root, 'skills'), touched, touched);
    const clock = shiftClock(PAST_STALENESS_COOLDOWN_MS);
    try {
      const found = await oursNames('stripes', 0);
      expect(found.names).toEqual(['zebra-care']);
      expect(found.lists).toBe(1);
      expect(await namesOn(host, theirs, 'stripes', 0)).toEqual(['zebra-care']);
      // Nothing changed since: the next request lists nothing.
      expect(await oursNames('stripes', 0)).toEqual({ names: ['zebra-care'], lists: 0, gets: 0 });
    } finally {
      clock.restore();
    }
    expect(ours.getIndexStats()).toMatchObject({ skillCount: 5 });
  });

  it('a scoped view (per-request skills paths): changes made on the view a request uses are seen there, other tenants untouched', async () => {
    const { root, cleanup } = tempRoot('skill-tracking-scoped-');
    cleanups.push(cleanup);
    writeSkills(root, 'a', BASE.slice(0, 2));
    writeSkills(root, 'b', BASE.slice(2));
    const ws = workspaceOf(host, root, ({ requestContext }) => [requestContext?.get?.('dir') ?? 'a']);
    const ours = new host.ours.SkillSearchProcessor({ workspace: ws, blockingRefresh: true });
    cleanups.push(() => ours.dispose());
    const rcA = contextOf(host, { dir: 'a', mastra__threadId: 'ta' });
    const rcB = contextOf(host, { dir: 'b', mastra__threadId: 'tb' });
    // The skills object each request searches: its scoped view where the host offers one.
    const viewOf = async (rc: any) =>
      typeof ws.skills.getScoped === 'function' ? ws.skills.getScoped({ requestContext: rc }) : ws.skills;
    expect(await namesOn(host, ours, 'pipelines', 0, rcA)).toEqual(['deployment']);
    expect(await namesOn(host, ours, 'postmortem', 0, rcB)).toEqual(['incident-response']);

    writeSkills(root, 'b', [ZEBRA]);
    const viewB = await viewOf(rcB);
    await viewB.addSkill('b/zebra-care');
    expect(await namesOn(host, ours, 'stripes', 1, rcB)).toEqual(['zebra-care']);
    await viewB.removeSkill('incident-response');
    expect(await namesOn(host, ours, 'postmortem', 1, rcB)).toEqual([]);
    if (host.ourHost.host.capabilities.scopedSkills) {
      // Tenant a's view is another skills object: its index is unchanged.
      expect(await namesOn(host, ours, 'stripes', 1, rcA)).toEqual([]);
      expect(await namesOn(host, ours, 'pipelines', 1, rcA)).toEqual(['deployment']);
    }
  });
});

describe.each(HOST_VERSIONS.filter((v) => loadHost(v).ourHost.host.capabilities.scopedSkillSources))(
  'change tracking with a filesystem resolver on host @mastra/core %s',
  (version) => {
    const host = loadHost(version);
    it("workspace.skills.refresh() (delegated to the resolved source's skills) is seen by the next search of that source", async () => {
      const { root, cleanup } = tempRoot('skill-tracking-source-');
      cleanups.push(cleanup);
      writeSkills(root, 'skills', BASE);
      const { Workspace, LocalFilesystem } = host.workspace;
      const fs = new LocalFilesystem({ basePath: root });
      const ws = new Workspace({ filesystem: () => fs, skills: ['skills'], bm25: true });
      const ours = new host.ours.SkillSearchProcessor({ workspace: ws });
      const theirs = new host.processors.SkillSearchProcessor({ workspace: ws });
      cleanups.push(() => ours.dispose(), () => theirs.dispose?.());
      expect(await namesOn(host, ours, 'pipelines', 0)).toEqual(['deployment']);
      writeSkills(root, 'skills', [ZEBRA]);
      await ws.skills.refresh();
      expect(await namesOn(host, ours, 'stripes', 1)).toEqual(['zebra-care']);
      expect(await namesOn(host, theirs, 'stripes', 1)).toEqual(['zebra-care']);
    });
  },
);

// ---------------------------------------------------------------------------------------------
// Stand-in skills classes (root host): what the tracking relies on, and where it steps aside.

type Rec = { name: string; path: string; description: string; instructions: string; references: string[] };
const rec = (name: string, body: string): Rec => ({ name, path: `skills/${name}`, description: name, instructions: body, references: [] });

/** A skills class named like Mastra's (so it is tracked) over an in-memory catalog. */
function trackedClass() {
  return class WorkspaceSkillsImpl {
    catalog = new Map<string, Rec>();
    disk = new Map<string, Rec>();
    failNextRefresh = false;
    async list() {
      return [...this.catalog.values()].map(({ name, path, description }) => ({ name, path, description }));
    }
    async get(name: string) {
      const r = this.catalog.get(name);
      return r ? { ...r } : null;
    }
    async refresh() {
      await Promise.resolve();
      if (this.failNextRefresh) {
        this.failNextRefresh = false;
        throw new Error('refresh failed');
      }
      this.catalog = new Map([...this.disk].map(([k, r]) => [k, { ...r, references: [] }]));
    }
    async maybeRefresh() {}
    async addSkill(name: string) {
      const r = this.disk.get(name);
      if (!r) throw new Error(`no skill at ${name}`);
      this.catalog.set(name, { ...r, references: [] });
    }
    async removeSkill(name: string) {
      this.catalog.delete(name);
    }
  };
}

function standIn(Cls: new () => any, records: Rec[]) {
  const skills = new Cls();
  for (const r of records) {
    skills.disk.set(r.name, r);
    skills.catalog.set(r.name, { ...r });
  }
  const p = new SkillSearchProcessor({ workspace: { skills } as any });
  cleanups.push(() => p.dispose());
  const list = vi.spyOn(Cls.prototype, 'list');
  const names = async (query: string, stepNumber = 0) =>
    (await call((await step(p, { stepNumber })).tools.search_skills, { query })).results.map((r: any) => r.name);
  return { skills, p, list, names };
}

const START = [rec('alpha', 'Pipelines and canaries.'), rec('beta', 'Postmortems for outages.')];

describe('stand-in skills classes', () => {
  it('wrappers are transparent: no enumerable keys, same results, errors reach the caller unchanged', async () => {
    const Cls = trackedClass();
    const { skills, names } = standIn(Cls, START);
    expect(await names('pipelines')).toEqual(['alpha']);
    expect(Object.keys(skills)).toEqual(['catalog', 'disk', 'failNextRefresh']);
    expect(Object.prototype.propertyIsEnumerable.call(skills, 'addSkill')).toBe(false);
    expect(await skills.get('alpha')).toEqual(START[0]);
    expect(await skills.list()).toEqual(await Cls.prototype.list.call(skills));
    await expect(skills.addSkill('nope')).rejects.toThrow('no skill at nope');
    skills.failNextRefresh = true;
    await expect(skills.refresh()).rejects.toThrow('refresh failed');
    // The wrappers are installed once per object, even with several processors on it.
    const wrapper = skills.get;
    const second = new SkillSearchProcessor({ workspace: { skills } as any });
    cleanups.push(() => second.dispose());
    await step(second);
    expect(skills.get).toBe(wrapper);
  });

  it('tracked: a change made through any method is seen at the next search; without one, no list()', async () => {
    const { skills, list, names } = standIn(trackedClass(), START);
    expect(await names('pipelines')).toEqual(['alpha']);
    skills.disk.set('gamma', rec('gamma', 'Stripes for zebras.'));
    await skills.addSkill('gamma');
    expect(await names('stripes', 1)).toEqual(['gamma']);
    const lists = list.mock.calls.length;
    const get = vi.spyOn(skills.constructor.prototype, 'get');
    const clock = shiftClock(PAST_FULL_CHECK_MS);
    try {
      expect(await names('stripes')).toEqual(['gamma']);
      expect(list.mock.calls.length).toBe(lists);
      expect(get).not.toHaveBeenCalled();
    } finally {
      clock.restore();
    }
  });

  it('the detector is what finds an added skill: a change that bypasses the methods stays unseen (the interval would not help within 5 s either)', async () => {
    const { skills, names } = standIn(trackedClass(), START);
    expect(await names('stripes')).toEqual([]);
    // A write straight into the catalog: no method call, so no change signal.
    skills.catalog.set('gamma', rec('gamma', 'Stripes for zebras.'));
    expect(await names('stripes')).toEqual([]);
    // The same write announced by a method call (an idempotent removeSkill of nothing) is seen.
    await skills.removeSkill('nothing');
    expect(await names('stripes', 1)).toEqual(['gamma']);
  });

  it('a failed refresh() suspends the trust (interval-based full checks) until a refresh() succeeds', async () => {
    const { skills, list, names } = standIn(trackedClass(), START);
    expect(await names('pipelines')).toEqual(['alpha']);
    skills.failNextRefresh = true;
    await expect(skills.refresh()).rejects.toThrow('refresh failed');
    // Like 1.58/1.59 after a failed refresh: the catalog may change at any later read.
    skills.catalog.set('gamma', rec('gamma', 'Stripes for zebras.'));
    expect(await names('stripes')).toEqual([]);
    const clock = shiftClock(PAST_FULL_CHECK_MS);
    try {
      expect(await names('stripes')).toEqual(['gamma']);
    } finally {
      clock.restore();
    }
    // A successful refresh restores the tracking: unchanged requests past the interval list nothing.
    skills.disk.set('gamma', rec('gamma', 'Stripes for zebras.'));
    await skills.refresh();
    expect(await names('stripes', 1)).toEqual(['gamma']);
    const lists = list.mock.calls.length;
    const later = shiftClock(2 * PAST_FULL_CHECK_MS);
    try {
      expect(await names('stripes')).toEqual(['gamma']);
      expect(list.mock.calls.length).toBe(lists);
    } finally {
      later.restore();
    }
  });

  it('1.58/1.59-style refresh (clears first; a read meanwhile rediscovers and finishes later): the final catalog is seen', async () => {
    const Base = trackedClass();
    let releaseLate!: () => void;
    const late = new Promise<void>((r) => (releaseLate = r));
    // Same methods, but refresh() clears the catalog and the next read rediscovers, late.
    const Flat = { WorkspaceSkillsImpl: class WorkspaceSkillsImpl {} }.WorkspaceSkillsImpl as any;
    for (const name of Object.getOwnPropertyNames(Base.prototype)) {
      if (name !== 'constructor') Flat.prototype[name] = Base.prototype[name];
    }
    Flat.prototype.refresh = async function (this: any) {
      this.catalog = new Map();
      this.rediscover = true;
      await Promise.resolve();
    };
    Flat.prototype.get = async function (this: any, name: string) {
      if (this.rediscover) {
        this.rediscover = false;
        // Lazy rediscovery started by this read; it lands after refresh() settled.
        await late;
        this.catalog = new Map([...this.disk].map(([k, r]: any) => [k, { ...r, references: [] }]));
      }
      const r = this.catalog.get(name);
      return r ? { ...r } : null;
    };
    const skills = new Flat();
    skills.catalog = new Map(START.map((r) => [r.name, { ...r }]));
    skills.disk = new Map(START.map((r) => [r.name, r]));
    const p = new SkillSearchProcessor({ workspace: { skills } as any });
    cleanups.push(() => p.dispose());
    const names = async (query: string, stepNumber = 0) =>
      (await call((await step(p, { stepNumber })).tools.search_skills, { query })).results.map((r: any) => r.name);
    expect(await names('pipelines')).toEqual(['alpha']);

    skills.disk.set('gamma', rec('gamma', 'Stripes for zebras.'));
    const refreshing = skills.refresh();
    // A read while the refresh is in flight: it starts the late rediscovery.
    const reading = skills.get('alpha');
    await refreshing;
    // Refresh settled, rediscovery still running: a search now reads the cleared catalog.
    expect(await names('stripes', 1)).toEqual([]);
    releaseLate();
    expect(await reading).toMatchObject({ name: 'alpha' });
    // The rediscovery landed after the refresh settled; the read that ran it counted as a
    // change, so the next search re-reads and finds the final catalog.
    expect(await names('stripes', 1)).toEqual(['gamma']);
    expect(await names('pipelines', 1)).toEqual(['alpha']);
  });

  it('not tracked: other classes, subclasses of a tracked one, and objects with own methods keep the 5 s full check', async () => {
    const Mastra = trackedClass();
    const Custom = class CustomSkills extends (class {} as any) {};
    Object.assign(Custom.prototype, Object.fromEntries(
      Object.getOwnPropertyNames(Mastra.prototype).filter((n) => n !== 'constructor').map((n) => [n, (Mastra.prototype as any)[n]]),
    ));
    const Sub = class WorkspaceSkillsImpl extends Mastra {};
    const kinds: Array<[string, () => any]> = [
      ['another class', () => Object.assign(new Custom(), { catalog: new Map(), disk: new Map() })],
      ['a subclass', () => new Sub()],
      [
        'own method (spied)',
        () => {
          const s = new Mastra();
          vi.spyOn(s, 'get');
          return s;
        },
      ],
    ];
    for (const [label, make] of kinds) {
      const skills = make();
      for (const r of START) {
        skills.disk.set(r.name, r);
        skills.catalog.set(r.name, { ...r });
      }
      const ownBefore = Object.getOwnPropertyNames(skills);
      const p = new SkillSearchProcessor({ workspace: { skills } as any });
      cleanups.push(() => p.dispose());
      const names = async (query: string, stepNumber = 0) =>
        (await call((await step(p, { stepNumber })).tools.search_skills, { query })).results.map((r: any) => r.name);
      expect(await names('pipelines'), label).toEqual(['alpha']);
      expect(Object.getOwnPropertyNames(skills), `${label}: nothing installed`).toEqual(ownBefore);
      skills.disk.set('gamma', rec('gamma', 'Stripes for zebras.'));
      await skills.addSkill('gamma');
      // Today's rule: the known skills are unchanged, so only the interval's full check finds it.
      expect(await names('stripes'), label).toEqual([]);
      const clock = shiftClock(PAST_FULL_CHECK_MS);
      try {
        expect(await names('stripes'), label).toEqual(['gamma']);
      } finally {
        clock.restore();
      }
    }
  });

  it('tracked, then a wrapper replaced (patched later): back to the 5 s full check', async () => {
    const { skills, names } = standIn(trackedClass(), START);
    expect(await names('pipelines')).toEqual(['alpha']);
    // A patch replacing the wrapper: its changes are not announced, so the trust ends.
    skills.addSkill = async function (this: any, name: string) {
      this.catalog.set(name, rec(name, 'Stripes for zebras.'));
    };
    await skills.addSkill('gamma');
    expect(await names('stripes')).toEqual([]);
    const clock = shiftClock(PAST_FULL_CHECK_MS);
    try {
      expect(await names('stripes')).toEqual(['gamma']);
    } finally {
      clock.restore();
    }
  });
});
