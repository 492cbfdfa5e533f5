// SkillSearchProcessor benchmark: ours vs @mastra/core@1.59.0 (workspace BM25 search) on a
// generated 1,000-skill workspace (real LocalFilesystem in a temp folder), in one run.
// Run after `npm run build` (release): `node bench/skill-search.mjs`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { MessageList } from '@mastra/core/agent';
import { SkillSearchProcessor as RefProcessor } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { LocalFilesystem, Workspace } from '@mastra/core/workspace';

const require = createRequire(import.meta.url);
const { SkillSearchProcessor } = require('../index.js');

const SKILLS = 1000;
const ITERATIONS = 300;
const WARMUP = 30;
// Requests measured per re-check row.
const RECHECKS = 15;
// More than SkillSearchProcessor's full re-check interval (5 s) for skills objects it cannot
// change-track; Mastra's own (this one) are tracked and need no interval.
const FULL_CHECK_SHIFT_MS = 6_000;
// Skills added one by one (addSkill, no refresh) for the after-a-change row.
const ADDS = 3;

// Deterministic pseudo-words so bodies share a realistic long-tail vocabulary.
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'den', 'tor', 'bel', 'fin', 'gra'];
const rand = rng(42);
const word = () => {
  const n = 2 + Math.floor(rand() * 3);
  let w = '';
  for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
  return w;
};
const VOCAB = Array.from({ length: 6000 }, word);
const pick = () => VOCAB[Math.floor((rand() ** 2) * VOCAB.length)];
const sentence = n => Array.from({ length: n }, pick).join(' ');
// Descriptions use their own words, so body-word queries rank the same as the reference's.
const describe = i => Array.from({ length: 10 }, (_, k) => `desc${(i * 7 + k * 13) % 3000}word`).join(' ');

function makeWorkspaceDir() {
  const root = mkdtempSync(join(tmpdir(), 'skill-bench-'));
  for (let i = 0; i < SKILLS; i++) {
    const name = `skill-${i}`;
    const dir = join(root, 'skills', name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${JSON.stringify(describe(i))}\n---\n# Skill ${i}\n\n${sentence(180)}\n\n${sentence(120)}\n`);
    if (i % 5 === 0) {
      mkdirSync(join(dir, 'references'), { recursive: true });
      writeFileSync(join(dir, 'references', 'notes.md'), sentence(200));
    }
  }
  return root;
}

const median = xs => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

async function stepTools(processor, stepNumber = 0) {
  const rc = new RequestContext();
  rc.set('mastra__threadId', 'bench');
  const r = await processor.processInputStep({
    tools: {},
    messageList: new MessageList({ threadId: 'bench', resourceId: 'r' }),
    requestContext: rc,
    messages: [],
    stepNumber,
  });
  return r.tools;
}

/** Median time of the first search of a request (step 0, then one search); `before` runs ahead of each. */
async function firstSearchMs(processor, query, before) {
  const times = [];
  for (let i = 0; i < RECHECKS; i++) {
    before?.();
    const tools = await stepTools(processor, 0);
    const t = performance.now();
    await tools.search_skills.execute({ query }, {});
    times.push(performance.now() - t);
  }
  return median(times);
}

async function timeSearches(tool, queries) {
  for (let i = 0; i < WARMUP; i++) await tool.execute({ query: queries[i % queries.length] }, {});
  const times = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t = performance.now();
    await tool.execute({ query: queries[i % queries.length] }, {});
    times.push(performance.now() - t);
  }
  return median(times);
}

export async function run() {
  const root = makeWorkspaceDir();
  const silence = console.warn;
  console.warn = () => {};
  let restoreCounters = () => {};
  try {
    const make = () => new Workspace({ filesystem: new LocalFilesystem({ basePath: root }), skills: ['skills'], bm25: true });
    const queries = Array.from({ length: 50 }, (_, i) => (i % 2 ? `${pick()} ${pick()}` : pick()));

    const ref = new RefProcessor({ workspace: make() });
    const ourWorkspace = make();
    const ours = new SkillSearchProcessor({ workspace: ourWorkspace });
    // Counts our skills object's list() and get() calls, to confirm which re-check path each
    // measurement took. Counted on the class's prototype (which the processor's change-tracking
    // wrappers call): an own method on the skills object would turn the tracking off.
    const ourSkills = ourWorkspace.skills;
    const proto = Object.getPrototypeOf(ourSkills);
    const { list, get } = proto;
    restoreCounters = () => {
      proto.list = list;
      proto.get = get;
    };
    let listCalls = 0;
    let getCalls = 0;
    proto.list = function (...args) {
      if (this === ourSkills) listCalls++;
      return list.apply(this, args);
    };
    proto.get = function (...args) {
      if (this === ourSkills) getCalls++;
      return get.apply(this, args);
    };
    const refTools = await stepTools(ref);
    const ourTools = await stepTools(ours);

    // First search after step 0: ours reads the skills and builds its index.
    let t = performance.now();
    await ourTools.search_skills.execute({ query: queries[0] }, {});
    const firstSearch = performance.now() - t;
    const built = ours.getIndexStats();

    // Later requests with unchanged skills: the first search re-checks without rebuilding.
    // Mastra's skills object is change-tracked: nothing was refreshed, added or removed, so
    // the re-check makes no skills call (an untracked custom object would get() every skill).
    let listsBefore = listCalls;
    let getsBefore = getCalls;
    const recheckSearch = await firstSearchMs(ours, queries[1]);
    if (listCalls !== listsBefore) throw new Error('the cheap re-check called skills.list()');
    if (getCalls !== getsBefore) throw new Error('the tracked re-check called skills.get()');
    // Past the 5 s interval (clock shifted, not slept): untracked skills objects would list()
    // here; Mastra's tracked one still makes no skills call.
    listsBefore = listCalls;
    getsBefore = getCalls;
    let shift = 0;
    const realNow = Date.now;
    Date.now = () => realNow.call(Date) + shift;
    let pastIntervalSearch;
    try {
      pastIntervalSearch = await firstSearchMs(ours, queries[1], () => (shift += FULL_CHECK_SHIFT_MS));
    } finally {
      Date.now = realNow;
    }
    if (listCalls !== listsBefore) throw new Error('the re-check past the interval called skills.list() without a change');
    if (getCalls !== getsBefore) throw new Error('the re-check past the interval called skills.get() without a change');
    if (ours.getIndexStats().builds !== built.builds) throw new Error('index was rebuilt without changes');

    const again = await stepTools(ours, 0);

    // Same results for sanity (first query words are body-only: same top result).
    const a = await refTools.search_skills.execute({ query: queries[0] }, {});
    const b = await ourTools.search_skills.execute({ query: queries[0] }, {});
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`results differ for ${queries[0]}`);

    // Enhanced mode (opt-in): its own index, built at the first search like the compatible one.
    const enhanced = new SkillSearchProcessor({ workspace: make(), search: { mode: 'enhanced' } });
    const enhancedTools = await stepTools(enhanced);
    const e = await enhancedTools.search_skills.execute({ query: queries[0] }, {});
    if (e.results.length === 0) throw new Error(`enhanced mode found nothing for ${queries[0]}`);
    const enhancedBuilt = enhanced.getIndexStats();

    const refP50 = await timeSearches(refTools.search_skills, queries);
    const ourP50 = await timeSearches(again.search_skills, queries);
    const refP50b = await timeSearches(refTools.search_skills, queries);
    const ourP50b = await timeSearches(again.search_skills, queries);
    const enhancedP50 = await timeSearches(enhancedTools.search_skills, queries);
    const enhancedP50b = await timeSearches(enhancedTools.search_skills, queries);
    const refMs = Math.min(refP50, refP50b);
    const ourMs = Math.min(ourP50, ourP50b);
    const enhancedMs = Math.min(enhancedP50, enhancedP50b);

    // After an addSkill() (no refresh): the next search lists once and rebuilds (reference: its
    // addSkill() indexes the skill; nothing to compare per search).
    const afterAdd = [];
    for (let i = 0; i < ADDS; i++) {
      const name = `added-${i}`;
      const dir = join(root, 'skills', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: "added ${i}"\n---\n${sentence(180)}\n`);
      await ourSkills.addSkill(`skills/${name}`);
      listsBefore = listCalls;
      getsBefore = getCalls;
      const tools = await stepTools(ours, 1);
      const t0 = performance.now();
      await tools.search_skills.execute({ query: queries[1] }, {});
      afterAdd.push(performance.now() - t0);
      if (listCalls - listsBefore !== 1) throw new Error('the search after addSkill() did not list the skills once');
      if (getCalls - getsBefore < SKILLS) throw new Error('the search after addSkill() did not get() the skills');
    }
    if (ours.getIndexStats().skillCount !== SKILLS + ADDS) throw new Error('added skills missing from the index');
    ref.dispose();
    ours.dispose();
    enhanced.dispose();
    const fmt = x => Math.round(x * 1000) / 1000;
    // The reference has no re-check (the workspace keeps its index): its first search is any search.
    return [
      { name: `search_skills p50 (${SKILLS} skills, ${built.documentCount} docs)`, reference_ms: fmt(refMs), native_ms: fmt(ourMs), ratio: fmt(refMs / ourMs) },
      { name: `search_skills p50, mode 'enhanced' (${SKILLS} skills)`, reference_ms: fmt(refMs), native_ms: fmt(enhancedMs), ratio: fmt(refMs / enhancedMs) },
      { name: 'index build (native, on change only)', reference_ms: null, native_ms: fmt(built.lastBuildMs), ratio: null },
      { name: "index build, mode 'enhanced' (on change only)", reference_ms: null, native_ms: fmt(enhancedBuilt.lastBuildMs), ratio: null },
      { name: 'first search after step 0: read skills + build', reference_ms: null, native_ms: fmt(firstSearch), ratio: null },
      { name: 'first search after step 0: re-check (tracked, unchanged: no skills call), no rebuild', reference_ms: fmt(refMs), native_ms: fmt(recheckSearch), ratio: fmt(refMs / recheckSearch) },
      { name: 'first search after step 0, 5 s+ after the last list(): re-check, no rebuild', reference_ms: fmt(refMs), native_ms: fmt(pastIntervalSearch), ratio: fmt(refMs / pastIntervalSearch) },
      { name: 'first search after an addSkill(): list() + rebuild (on change only)', reference_ms: null, native_ms: fmt(median(afterAdd)), ratio: null },
    ];
  } finally {
    console.warn = silence;
    restoreCounters();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await run();
  console.table(rows);
}
