// Checks data/multilingual (the project's own multilingual tool-retrieval set) and reports
// its make-up. `node scripts/check-multilingual-data.mjs` prints the report and exits 1
// when a rule is broken; __test__/data/multilingual.spec.ts runs the same checks.
//
// "Shares no word" (the paraphrase measure) uses this tokenization, the same for a
// request and for a tool's id + description:
//   1. NFKC, lowercase, Traditional→Simplified Chinese folding (data/multilingual/han-fold.json,
//      the fold the enhanced analyzer applies), so 發起 and 发起 are one word.
//   2. The text is cut into runs of one script: Latin letters and digits together, Han,
//      katakana (with the prolonged sound mark ー), hiragana, Hangul. Anything else
//      (spaces, punctuation, `_`) separates runs, and so does a change of script, so
//      `S3에서` is `s3` + `에서` and `github_create_pull_request` is four runs.
//   3. A Latin/digit run is one word when it has 2+ characters. A Han, katakana, Hangul or
//      hiragana run gives each pair of neighbouring characters as a word (bigrams); a run of
//      one character gives none.
// Two measures, each required for at least MIN_NO_SHARED_SHARE of every language:
//   - content words: every word except English stopwords (`the`, `to`, `my`…);
//   - strict: every word. CJK particles and endings are kept in both: in this data they
//     almost never coincide with a tool's words (the two measures differ only for English).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_DATA_DIR = join(here, '..', 'data', 'multilingual');

export const LANGS = ['en', 'zh-Hant', 'zh-Hans', 'ja', 'ko'];
// Target share of tools per language (the brief: a realistic mixed catalog), ± TOOL_SHARE_SLACK.
export const TOOL_LANG_TARGET = { en: 0.25, 'zh-Hant': 0.2, 'zh-Hans': 0.2, ja: 0.17, ko: 0.18 };
const TOOL_SHARE_SLACK = 0.04;
// Requests: about a fifth each.
const QUERY_SHARE_MIN = 0.16;
const QUERY_SHARE_MAX = 0.24;
export const MIN_TOOLS = 120;
export const MIN_QUERIES = 720;
export const MIN_QUERIES_PER_TOOL = 2;
export const MIN_NO_SHARED_SHARE = 0.4;
// Each language's dev share must lie in this range (the halves are about equal).
const SPLIT_SHARE_MIN = 0.4;
const SPLIT_SHARE_MAX = 0.6;

const ENGLISH_STOPWORDS = new Set(
  `about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing don down during each few for from further had has
  have having he her here hers herself him himself his how if in into is it its itself just ll me
  more most my myself no nor not now of off on once only or other our ours ourselves out over own re
  same she should so some such than that the their theirs them themselves then there these they this
  those through to too under until up ve very was we were what when where which while who whom why
  will with would you your yours yourself yourselves`.split(/\s+/),
);


const SCRIPT = {
  latin: /[\p{Script=Latin}\p{Nd}]/u,
  han: /\p{Script=Han}/u,
  katakana: /[\p{Script=Katakana}ー]/u,
  hiragana: /\p{Script=Hiragana}/u,
  hangul: /\p{Script=Hangul}/u,
};

function scriptOf(ch) {
  for (const [name, re] of Object.entries(SCRIPT)) if (re.test(ch)) return name;
  return null;
}

export function loadHanFold(dataDir = DEFAULT_DATA_DIR) {
  const raw = JSON.parse(readFileSync(join(dataDir, 'han-fold.json'), 'utf8'));
  const trad = [...raw.traditional];
  const simp = [...raw.simplified];
  if (trad.length !== simp.length) throw new Error('han-fold.json: "traditional" and "simplified" differ in length');
  return { map: new Map(trad.map((t, i) => [t, simp[i]])), checked: new Set(raw.checked) };
}

/** Words of `text` as sets: `content` (the rule's measure) and `strict` (everything). */
export function tokenize(text, fold) {
  let s = text.normalize('NFKC').toLowerCase();
  s = [...s].map((c) => fold.map.get(c) ?? c).join('');
  const runs = [];
  let current = null;
  for (const ch of s) {
    const script = scriptOf(ch);
    if (script && current && current.script === script) current.text += ch;
    else {
      if (current) runs.push(current);
      current = script ? { script, text: ch } : null;
    }
  }
  if (current) runs.push(current);

  const content = new Set();
  const strict = new Set();
  for (const { script, text: run } of runs) {
    if (script === 'latin') {
      if (run.length < 2) continue;
      strict.add(run);
      if (!ENGLISH_STOPWORDS.has(run)) content.add(run);
      continue;
    }
    const chars = [...run];
    for (let i = 0; i + 1 < chars.length; i++) {
      const bigram = chars[i] + chars[i + 1];
      strict.add(bigram);
      content.add(bigram);
    }
  }
  return { content, strict };
}

function readJsonl(path, errors) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    errors.push(`${path}: cannot read (${err.message})`);
    return [];
  }
  const rows = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    try {
      rows.push({ line: i + 1, value: JSON.parse(line) });
    } catch (err) {
      errors.push(`${path}:${i + 1}: invalid JSON (${err.message})`);
    }
  });
  return rows;
}

const hasExactKeys = (obj, keys) =>
  obj !== null && typeof obj === 'object' && !Array.isArray(obj) && Object.keys(obj).sort().join() === [...keys].sort().join();

// Sentence ends: . ! ? followed by a space or the end, and the CJK full stops.
function countSentences(text) {
  return text
    .split(/(?<=[.!?])\s+|(?<=[。！？])/u)
    .map((s) => s.trim())
    .filter(Boolean).length;
}

const share = (part, whole) => (whole ? part / whole : 0);
const pct = (x) => `${(100 * x).toFixed(1)}%`;

/**
 * Runs every check. Returns { errors: string[], report: object }; no errors means the data
 * follows every rule above.
 */
export function checkMultilingualData(dataDir = DEFAULT_DATA_DIR) {
  const errors = [];
  const fold = loadHanFold(dataDir);
  const toolRows = readJsonl(join(dataDir, 'tools.jsonl'), errors);
  const queryRows = readJsonl(join(dataDir, 'queries.jsonl'), errors);

  // Tools.
  const tools = new Map();
  for (const { line, value: t } of toolRows) {
    const where = `tools.jsonl:${line}`;
    if (!hasExactKeys(t, ['id', 'lang', 'description'])) {
      errors.push(`${where}: expected exactly the keys id, lang, description`);
      continue;
    }
    if (typeof t.id !== 'string' || !/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(t.id)) errors.push(`${where}: id ${JSON.stringify(t.id)} is not snake_case ASCII`);
    if (!LANGS.includes(t.lang)) errors.push(`${where}: lang ${JSON.stringify(t.lang)} is not one of ${LANGS.join(', ')}`);
    if (typeof t.description !== 'string' || !t.description.trim()) errors.push(`${where}: description must be a non-empty string`);
    else {
      const n = countSentences(t.description);
      if (n < 1 || n > 3) errors.push(`${where}: description has ${n} sentences (1–3 expected)`);
    }
    if (tools.has(t.id)) errors.push(`${where}: duplicate tool id ${t.id}`);
    else tools.set(t.id, t);
  }

  // Requests.
  const queries = [];
  const queryIds = new Set();
  const queryTexts = new Map();
  for (const { line, value: q } of queryRows) {
    const where = `queries.jsonl:${line}`;
    if (!hasExactKeys(q, ['id', 'lang', 'query', 'relevant', 'split'])) {
      errors.push(`${where}: expected exactly the keys id, lang, query, relevant, split`);
      continue;
    }
    let ok = true;
    if (typeof q.id !== 'string' || !/^q\d{4,}$/.test(q.id)) (ok = false), errors.push(`${where}: id ${JSON.stringify(q.id)} is not like q0001`);
    else if (queryIds.has(q.id)) (ok = false), errors.push(`${where}: duplicate request id ${q.id}`);
    else queryIds.add(q.id);
    if (!LANGS.includes(q.lang)) (ok = false), errors.push(`${where}: lang ${JSON.stringify(q.lang)} is not one of ${LANGS.join(', ')}`);
    if (typeof q.query !== 'string' || !q.query.trim()) (ok = false), errors.push(`${where}: query must be a non-empty string`);
    else {
      const key = q.query.normalize('NFKC').trim().toLowerCase();
      if (queryTexts.has(key)) errors.push(`${where}: same request text as ${queryTexts.get(key)}`);
      else queryTexts.set(key, q.id);
    }
    if (q.split !== 'dev' && q.split !== 'test') (ok = false), errors.push(`${where}: split must be "dev" or "test"`);
    if (!Array.isArray(q.relevant) || q.relevant.length === 0) (ok = false), errors.push(`${where}: relevant must be a non-empty array of tool ids`);
    else {
      if (new Set(q.relevant).size !== q.relevant.length) errors.push(`${where}: relevant lists a tool twice`);
      for (const id of q.relevant) if (!tools.has(id)) (ok = false), errors.push(`${where}: relevant tool ${JSON.stringify(id)} is not in tools.jsonl`);
    }
    if (ok) queries.push(q);
  }

  // Han characters the fold table has not looked up would be compared unfolded.
  const unchecked = new Set();
  for (const text of [...[...tools.values()].map((t) => t.description), ...queries.map((q) => q.query)]) {
    for (const ch of text.normalize('NFKC')) if (SCRIPT.han.test(ch) && !fold.checked.has(ch)) unchecked.add(ch);
  }
  if (unchecked.size) {
    errors.push(`han-fold.json has not looked up ${unchecked.size} Han characters (${[...unchecked].slice(0, 20).join('')}…): regenerate it (data/multilingual/README.md)`);
  }

  // Counts and shares.
  if (tools.size < MIN_TOOLS) errors.push(`${tools.size} tools; at least ${MIN_TOOLS} expected`);
  if (queries.length < MIN_QUERIES) errors.push(`${queries.length} requests; at least ${MIN_QUERIES} expected`);
  const toolsByLang = Object.fromEntries(LANGS.map((l) => [l, 0]));
  for (const t of tools.values()) if (t.lang in toolsByLang) toolsByLang[t.lang] += 1;
  for (const l of LANGS) {
    const s = share(toolsByLang[l], tools.size);
    if (Math.abs(s - TOOL_LANG_TARGET[l]) > TOOL_SHARE_SLACK) errors.push(`tools in ${l}: ${pct(s)}, expected ${pct(TOOL_LANG_TARGET[l])} ± ${pct(TOOL_SHARE_SLACK)}`);
  }

  const perLang = Object.fromEntries(
    LANGS.map((l) => [l, { n: 0, dev: 0, test: 0, multi: 0, crossLang: 0, noSharedContent: 0, noSharedStrict: 0 }]),
  );
  const perTool = new Map([...tools.keys()].map((id) => [id, { n: 0, dev: 0, test: 0 }]));
  const toolWords = new Map([...tools.values()].map((t) => [t.id, tokenize(`${t.id} ${t.description}`, fold)]));
  const noShared = [];
  for (const q of queries) {
    const s = perLang[q.lang];
    s.n += 1;
    s[q.split] += 1;
    if (q.relevant.length > 1) s.multi += 1;
    if (q.relevant.every((id) => tools.get(id).lang !== q.lang)) s.crossLang += 1;
    for (const id of q.relevant) {
      const t = perTool.get(id);
      t.n += 1;
      t[q.split] += 1;
    }
    const words = tokenize(q.query, fold);
    const sharesAny = (kind) => q.relevant.some((id) => [...words[kind]].some((w) => toolWords.get(id)[kind].has(w)));
    if (!sharesAny('content')) {
      s.noSharedContent += 1;
      noShared.push(q.id);
    }
    if (!sharesAny('strict')) s.noSharedStrict += 1;
  }

  for (const l of LANGS) {
    const s = perLang[l];
    const qs = share(s.n, queries.length);
    if (qs < QUERY_SHARE_MIN || qs > QUERY_SHARE_MAX) errors.push(`requests in ${l}: ${pct(qs)}, expected ${pct(QUERY_SHARE_MIN)}–${pct(QUERY_SHARE_MAX)}`);
    if (!s.dev || !s.test) errors.push(`requests in ${l}: dev ${s.dev}, test ${s.test}; both splits needed`);
    const devShare = share(s.dev, s.n);
    if (s.n && (devShare < SPLIT_SHARE_MIN || devShare > SPLIT_SHARE_MAX)) errors.push(`requests in ${l}: dev is ${pct(devShare)} of them, expected ${pct(SPLIT_SHARE_MIN)}–${pct(SPLIT_SHARE_MAX)}`);
    const ns = share(s.noSharedContent, s.n);
    if (ns < MIN_NO_SHARED_SHARE) errors.push(`requests in ${l} sharing no content word with a relevant tool: ${pct(ns)}, at least ${pct(MIN_NO_SHARED_SHARE)} expected`);
    const nsStrict = share(s.noSharedStrict, s.n);
    if (nsStrict < MIN_NO_SHARED_SHARE) errors.push(`requests in ${l} sharing no word at all with a relevant tool: ${pct(nsStrict)}, at least ${pct(MIN_NO_SHARED_SHARE)} expected`);
  }
  for (const [id, t] of perTool) {
    if (t.n < MIN_QUERIES_PER_TOOL) errors.push(`tool ${id} is relevant to ${t.n} requests; at least ${MIN_QUERIES_PER_TOOL} expected`);
    else if (!t.dev || !t.test) errors.push(`tool ${id} is relevant to dev ${t.dev} and test ${t.test} requests; both splits needed`);
  }

  const report = {
    tools: tools.size,
    toolsByLang,
    queries: queries.length,
    perLang,
    totals: {
      dev: queries.filter((q) => q.split === 'dev').length,
      test: queries.filter((q) => q.split === 'test').length,
      multi: queries.filter((q) => q.relevant.length > 1).length,
      noSharedContent: noShared.length,
      noSharedStrict: LANGS.reduce((a, l) => a + perLang[l].noSharedStrict, 0),
      crossLang: LANGS.reduce((a, l) => a + perLang[l].crossLang, 0),
    },
    minRequestsPerTool: Math.min(...[...perTool.values()].map((t) => t.n)),
    noSharedIds: noShared,
  };
  return { errors, report };
}

export function formatReport(report) {
  const lines = [];
  lines.push(`tools: ${report.tools} (${LANGS.map((l) => `${l} ${report.toolsByLang[l]} = ${pct(share(report.toolsByLang[l], report.tools))}`).join(', ')})`);
  lines.push(`requests: ${report.queries} (dev ${report.totals.dev}, test ${report.totals.test}); fewest requests per tool: ${report.minRequestsPerTool}`);
  lines.push('');
  const head = ['lang', 'requests', 'share', 'dev', 'test', '>1 relevant', 'other-lang tools', 'no shared word', '(strict)'];
  const rows = LANGS.map((l) => {
    const s = report.perLang[l];
    return [l, s.n, pct(share(s.n, report.queries)), s.dev, s.test, s.multi, pct(share(s.crossLang, s.n)), pct(share(s.noSharedContent, s.n)), pct(share(s.noSharedStrict, s.n))];
  });
  const t = report.totals;
  rows.push(['all', report.queries, '100.0%', t.dev, t.test, t.multi, pct(share(t.crossLang, report.queries)), pct(share(t.noSharedContent, report.queries)), pct(share(t.noSharedStrict, report.queries))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
  lines.push(fmt(head));
  for (const r of rows) lines.push(fmt(r));
  lines.push('');
  lines.push('"no shared word": no content word in common with any relevant tool\'s id or description;');
  lines.push('"(strict)": no word at all in common (English stopwords counted too).');
  lines.push('"other-lang tools": every relevant tool is described in another language than the request.');
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dir = process.argv[2] ? resolve(process.argv[2]) : DEFAULT_DATA_DIR;
  const { errors, report } = checkMultilingualData(dir);
  console.log(formatReport(report));
  if (errors.length) {
    console.error(`\n${errors.length} problem(s):`);
    for (const e of errors) console.error(`- ${e}`);
    process.exitCode = 1;
  } else {
    console.log('\nall checks pass');
  }
}
