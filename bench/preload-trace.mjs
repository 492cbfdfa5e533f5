// Where learned evidence agrees with the search and where it does not (docs/learning.md, "What is
// not done yet"). Runs agent-steps' learn row (the oracle model, --warmup past tasks first) and,
// for every counted task, records what preload's learned ranking saw: the zero-shot hits and
// their confidences, the neighbours' votes and the matching profiles. Then per task: is the
// zero-shot best, the profiles' best, the neighbours' best right; how often they agree and how
// often each is right when they do. `--out FILE` also writes the records as JSON (offline rule
// design). Tune on --split dev only.
//
//   node bench/preload-trace.mjs [--set metatool|mcp|multilingual] [--split dev|test] [--warmup 2000]
//     [--mode hybrid|enhanced] [--out FILE]
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { LEARN_SUFFIX, buildSets, configsFor, runSet } from './agent-steps.mjs';

const require = createRequire(import.meta.url);
const native = require('../js/native.js');
const { ToolLearning } = require('../js/learn/index.js');

const option = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
const set = option('set', 'metatool');
const split = option('split', 'dev');
const warmup = Number(option('warmup', 2000));
const mode = option('mode', 'hybrid');

// What preload's learned ranking sees, per call (the native lookup is watched through its class).
let lastVotes;
const votes = native.NativeLearnedIndex.prototype.votes;
native.NativeLearnedIndex.prototype.votes = function (...args) {
  lastVotes = votes.apply(this, args);
  return lastVotes;
};
const records = [];
const preloadRanking = ToolLearning.prototype.preloadRanking;
ToolLearning.prototype.preloadRanking = function (ranking, catalog, requestContext, query, preferId) {
  lastVotes = undefined;
  const out = preloadRanking.call(this, ranking, catalog, requestContext, query, preferId);
  const ev = lastVotes ?? { tools: [], profileTools: [] };
  records.push({ query: String(query), zeroShot: ranking.results.map((r) => r.name), confidences: [...ranking.confidences], votes: [...ev.tools], profiles: [...ev.profileTools], preloaded: out.results.map((r) => r.name) });
  return out;
};

const config = configsFor({ warmup }).find((c) => c[0] === `ours, ${mode} + preload${LEARN_SUFFIX}`);
if (!config) throw new TypeError(`--mode: 'hybrid' (needs the model) or 'enhanced', not ${JSON.stringify(mode)}`);
const traces = [];
for (const s of buildSets({ which: set, split, warmup, languages: 'together' })) {
  records.length = 0;
  const row = await runSet(s.tasks, s.catalog, config, { past: s.past, model: 'oracle' });
  const byQuery = new Map(records.map((r) => [r.query, r]));
  const strata = new Map();
  const count = { tasks: s.tasks.length, solved: row.solved, zeroShot: 0, profiles: 0, votes: 0, any: 0 };
  s.tasks.forEach((task, i) => {
    const r = byQuery.get(task.query);
    traces.push({ set: s.name, query: task.query, relevant: task.relevant, outcome: row.outcomes[i], trace: r ?? null });
    if (!r) return;
    const right = (name) => name !== undefined && task.relevant.includes(name);
    const [z, p, v] = [r.zeroShot[0], r.profiles[0], r.votes[0]];
    count.zeroShot += right(z) ? 1 : 0;
    count.profiles += right(p) ? 1 : 0;
    count.votes += right(v) ? 1 : 0;
    count.any += right(z) || right(p) || right(v) ? 1 : 0;
    const key = z === p && p === v ? 'all three agree' : z === p ? 'zero-shot = profiles' : p === v ? 'profiles = neighbours' : z === v ? 'zero-shot = neighbours' : 'all differ';
    const stratum = strata.get(key) ?? { tasks: 0, zeroShot: 0, profiles: 0, votes: 0 };
    stratum.tasks++;
    stratum.zeroShot += right(z) ? 1 : 0;
    stratum.profiles += right(p) ? 1 : 0;
    stratum.votes += right(v) ? 1 : 0;
    strata.set(key, stratum);
  });
  console.log(`\n### ${s.name}, ${mode} + preload + learn, ${warmup} past tasks\n`);
  console.log(`${count.solved} of ${count.tasks} solved; the best is right: zero-shot ${count.zeroShot}, profiles ${count.profiles}, neighbours ${count.votes}; any of the three ${count.any}\n`);
  console.log('| the three bests | tasks | zero-shot right | profiles right | neighbours right |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [key, x] of strata) console.log(`| ${key} | ${x.tasks} | ${x.zeroShot} | ${x.profiles} | ${x.votes} |`);
}
const out = option('out', undefined);
if (out) writeFileSync(out, JSON.stringify(traces));
