// How a request's first search re-checks the index against the workspace (real LocalFilesystem in
// a temp folder): re-getting the known skills is enough to see refreshes, edits and removals;
// skills.list() runs only when that cheap check sees a change or its interval has passed.
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SkillSearchProcessor } from '../../index.js';
import {
  call,
  fixtureSkills,
  PAST_FULL_CHECK_MS,
  shiftClock,
  skillFile,
  step,
  tempSkillsWorkspace,
  writeSkill,
  type TempWorkspace,
} from '../support/skill-search';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
  vi.restoreAllMocks();
});

/** A processor over a fresh workspace on an 8-skill temp folder; `search` runs a step then a query. */
function setup(skills = fixtureSkills().slice(0, 8)) {
  const local: TempWorkspace = tempSkillsWorkspace(skills);
  const ws = local.make();
  const p = new SkillSearchProcessor({ workspace: ws });
  cleanups.push(() => local.cleanup(), () => p.dispose());
  const search = async (query: string, stepNumber = 0) =>
    call((await step(p, { stepNumber })).tools.search_skills, { query });
  const names = async (query: string, stepNumber = 0) => (await search(query, stepNumber)).results.map((r: any) => r.name);
  return { local, ws, skills: ws.skills!, p, search, names };
}

describe('re-check after step 0', () => {
  it('a refresh that edits a SKILL.md body: the next request searches the new content', async () => {
    const { local, skills, p, names } = setup();
    expect(await names('pipelines')).toEqual(['deployment']);
    const list = vi.spyOn(skills, 'list');

    writeFileSync(
      join(local.root, 'skills/deployment/SKILL.md'),
      skillFile({ name: 'deployment', description: 'How to deploy applications to production', body: 'Ship releases by zeppelin.' }),
    );
    await skills.refresh();
    expect(await names('zeppelin')).toEqual(['deployment']);
    expect(await names('pipelines', 1)).toEqual([]);
    // The re-parse was seen by the cheap check, which then fell back to one full read.
    expect(list).toHaveBeenCalledTimes(1);
    expect(p.getIndexStats()).toMatchObject({ builds: 2, skillCount: 8 });
  });

  it('a new skill directory picked up by the step-0 staleness refresh is found at once', async () => {
    const { local, skills, p, names } = setup();
    expect(await names('stripes')).toEqual([]);

    writeSkill(local.root, { name: 'zebra-care', description: 'Looking after zebras', body: 'Brush the stripes gently.' });
    // The new directory makes skills/ newer than the last discovery (set explicitly: same-ms writes).
    const touched = new Date(Date.now() + 1_000);
    utimesSync(join(local.root, 'skills'), touched, touched);
    // Past Mastra's 2 s staleness cooldown but within our 5 s full re-check interval, so the
    // addition is seen through the re-parsed (new) `references` arrays of the known skills.
    const clock = shiftClock(3_000);
    try {
      const refresh = vi.spyOn(skills, 'refresh');
      expect(await names('stripes')).toEqual(['zebra-care']);
      expect(refresh).toHaveBeenCalledTimes(1);
    } finally {
      clock.restore();
    }
    expect(p.getIndexStats()).toMatchObject({ builds: 2, skillCount: 9 });
  });

  it('a new skill after refresh() is found when the workspace had no skills before', async () => {
    // With no known skill, there is no `references` array to witness a refresh: check fully.
    const { local, skills, p, names } = setup([]);
    expect(await names('stripes')).toEqual([]);
    mkdirSync(join(local.root, 'skills'), { recursive: true });
    writeSkill(local.root, { name: 'zebra-care', description: 'Looking after zebras', body: 'Brush the stripes gently.' });
    await skills.refresh();
    expect(await names('stripes')).toEqual(['zebra-care']);
    expect(p.getIndexStats()).toMatchObject({ builds: 2, skillCount: 1 });
  });

  it('a removed skill disappears from the next request, whether removed by removeSkill() or a refresh', async () => {
    const { local, skills, p, names } = setup();
    expect(await names('pipelines')).toEqual(['deployment']);
    expect(await names('reversible migrations')).toEqual(['database-migrations']);

    await skills.removeSkill('deployment');
    expect(await names('pipelines')).toEqual([]);
    expect(p.getIndexStats()).toMatchObject({ skillCount: 7 });

    rmSync(join(local.root, 'skills/database-migrations'), { recursive: true, force: true });
    await skills.refresh();
    expect(await names('reversible migrations')).toEqual([]);
    // The refresh re-discovers from disk, where deployment's folder is still present.
    expect(await names('pipelines', 1)).toEqual(['deployment']);
    expect(p.getIndexStats()).toMatchObject({ skillCount: 7 });
    // The others still answer.
    expect(await names('postmortem', 1)).toEqual(['incident-response']);
  });

  it('unchanged skills: a second request within the interval does not call list(); results stay correct', async () => {
    const { skills, p, search } = setup();
    const first = await search('reversible migrations');
    expect(first.results[0].name).toBe('database-migrations');
    expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 1 });

    const list = vi.spyOn(skills, 'list');
    const get = vi.spyOn(skills, 'get');
    const second = await search('reversible migrations');
    expect(second).toEqual(first);
    expect(list).not.toHaveBeenCalled();
    // The cheap check re-got each of the 8 known skills once.
    expect(get).toHaveBeenCalledTimes(8);
    expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 2 });

    // Past the interval, the next request's check lists the skills again (and still does not rebuild).
    const clock = shiftClock(PAST_FULL_CHECK_MS);
    try {
      expect(await search('reversible migrations')).toEqual(first);
      expect(list).toHaveBeenCalledTimes(1);
      expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 3 });
      // That full check restarts the interval: the request after it is cheap again.
      expect(await search('reversible migrations')).toEqual(first);
      expect(list).toHaveBeenCalledTimes(1);
    } finally {
      clock.restore();
    }
  });

  it('addSkill() without a refresh, skills object not change-tracked (its get() is spied): found by the first request once the full re-check interval has passed', async () => {
    const { local, skills, p, names } = setup();
    // An own method on the skills object (a spy, a patch) turns change tracking off for it.
    vi.spyOn(skills, 'get');
    expect(await names('pipelines')).toEqual(['deployment']);
    writeSkill(local.root, { name: 'zebra-care', description: 'Looking after zebras', body: 'Brush the stripes gently.' });
    await skills.addSkill('skills/zebra-care');
    // Within the interval the known skills are unchanged, so the index is kept.
    expect(await names('stripes')).toEqual([]);
    const clock = shiftClock(PAST_FULL_CHECK_MS);
    try {
      expect(await names('stripes')).toEqual(['zebra-care']);
    } finally {
      clock.restore();
    }
    expect(p.getIndexStats()).toMatchObject({ builds: 2, skillCount: 9 });
  });

  it('addSkill() without a refresh on Mastra\'s (change-tracked) skills object: found by the next search at once, no interval', async () => {
    const { local, skills, p, names } = setup();
    expect(await names('pipelines')).toEqual(['deployment']);
    writeSkill(local.root, { name: 'zebra-care', description: 'Looking after zebras', body: 'Brush the stripes gently.' });
    await skills.addSkill('skills/zebra-care');
    // Same request (step 1, no step-0 re-check): the tracked addSkill() re-checks anyway.
    expect(await names('stripes', 1)).toEqual(['zebra-care']);
    expect(p.getIndexStats()).toMatchObject({ builds: 2, skillCount: 9 });
  });

  it('addSkill() updating a known skill in place is seen by the next request', async () => {
    const { local, skills, names } = setup();
    expect(await names('pipelines')).toEqual(['deployment']);
    writeFileSync(
      join(local.root, 'skills/deployment/SKILL.md'),
      skillFile({ name: 'deployment', description: 'How to deploy applications to production', body: 'Ship releases by zeppelin.' }),
    );
    await skills.addSkill('skills/deployment');
    expect(await names('zeppelin')).toEqual(['deployment']);
    expect(await names('pipelines', 1)).toEqual([]);
  });
});
