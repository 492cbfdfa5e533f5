// The multilingual benchmark data (data/multilingual) passes its checker, and the checker
// catches each kind of broken data it is meant to catch.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DATA_DIR,
  LANGS,
  MIN_NO_SHARED_SHARE,
  checkMultilingualData,
  loadHanFold,
  tokenize,
} from '../../scripts/check-multilingual-data.mjs';

const readJsonl = (file: string) =>
  readFileSync(join(DEFAULT_DATA_DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Checks a copy of the data after `mutate` changed its tools and requests. */
function checkMutated(mutate: (tools: any[], queries: any[]) => void, rawQueries?: (text: string) => string) {
  const dir = mkdtempSync(join(tmpdir(), 'multilingual-data-'));
  tempDirs.push(dir);
  const tools = readJsonl('tools.jsonl');
  const queries = readJsonl('queries.jsonl');
  mutate(tools, queries);
  const toJsonl = (rows: any[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
  writeFileSync(join(dir, 'tools.jsonl'), toJsonl(tools));
  const queriesText = toJsonl(queries);
  writeFileSync(join(dir, 'queries.jsonl'), rawQueries ? rawQueries(queriesText) : queriesText);
  copyFileSync(join(DEFAULT_DATA_DIR, 'han-fold.json'), join(dir, 'han-fold.json'));
  return checkMultilingualData(dir).errors;
}

describe('multilingual data', () => {
  const { errors, report } = checkMultilingualData();

  it('passes every check', () => {
    expect(errors).toEqual([]);
  });

  it('has the promised size and mix', () => {
    expect(report.tools).toBeGreaterThanOrEqual(120);
    expect(report.queries).toBeGreaterThanOrEqual(720);
    expect(report.minRequestsPerTool).toBeGreaterThanOrEqual(2);
    for (const lang of LANGS) {
      const s = report.perLang[lang];
      expect(s.dev, lang).toBeGreaterThan(0);
      expect(s.test, lang).toBeGreaterThan(0);
      expect(s.noSharedContent / s.n, lang).toBeGreaterThanOrEqual(MIN_NO_SHARED_SHARE);
      expect(s.noSharedStrict / s.n, lang).toBeGreaterThanOrEqual(MIN_NO_SHARED_SHARE);
    }
    // Some requests have several right tools.
    expect(report.totals.multi).toBeGreaterThan(0);
  });

  it('contains the known hard misses, labelled with the tool that serves them', () => {
    const queries = readJsonl('queries.jsonl');
    const find = (text: string) => queries.find((q) => q.query === text);
    expect(find('do I need an umbrella tomorrow?')?.relevant).toEqual(['weather_get_forecast']);
    expect(find('what is Apple trading at?')?.relevant).toEqual(['stock_get_quote']);
    expect(find('幫我把改動送審')?.relevant).toContain('github_create_pull_request');
  });
});

describe('paraphrase tokenization', () => {
  const fold = loadHanFold();
  const words = (text: string) => [...tokenize(text, fold).content].sort();

  it('splits identifiers and mixed scripts into runs of one script', () => {
    expect(words('github_create_pull_request')).toEqual(['create', 'github', 'pull', 'request']);
    expect(words('S3에서')).toEqual(['s3', '에서']);
    expect(words('Slackに送って')).toEqual(['slack', 'って']);
  });

  it('turns CJK runs into character bigrams and drops one-character runs', () => {
    expect(words('幫我開個 PR')).toEqual(['pr', '开个', '我开', '帮我'].sort());
    expect(words('を')).toEqual([]);
    expect(words('a b')).toEqual([]);
  });

  it('folds Traditional to Simplified Chinese and full-width forms', () => {
    expect(words('發起')).toEqual(words('发起'));
    expect(words('ＰＲ')).toEqual(['pr']);
  });

  it('leaves English stopwords out of content words only', () => {
    const { content, strict } = tokenize('open the PR for me', fold);
    expect([...content].sort()).toEqual(['open', 'pr']);
    expect([...strict].sort()).toEqual(['for', 'me', 'open', 'pr', 'the']);
  });
});

describe('the checker catches broken data', () => {
  it('invalid JSON', () => {
    const errs = checkMutated(() => {}, (text) => text + '{"id": "q9999",\n');
    expect(errs.some((e) => /queries\.jsonl:\d+: invalid JSON/.test(e))).toBe(true);
  });

  it('duplicate ids', () => {
    const errs = checkMutated((tools, queries) => {
      tools[1].id = tools[0].id;
      queries[1].id = queries[0].id;
    });
    expect(errs.some((e) => e.includes('duplicate tool id'))).toBe(true);
    expect(errs.some((e) => e.includes('duplicate request id'))).toBe(true);
  });

  it('a relevant tool that does not exist', () => {
    const errs = checkMutated((_tools, queries) => {
      queries[0].relevant = ['no_such_tool'];
    });
    expect(errs.some((e) => e.includes('"no_such_tool" is not in tools.jsonl'))).toBe(true);
  });

  it('a tool id that is not snake_case, an unknown language, a bad split', () => {
    const errs = checkMutated((tools, queries) => {
      tools[0].id = 'createPullRequest';
      queries[0].lang = 'fr';
      queries[1].split = 'train';
    });
    expect(errs.some((e) => e.includes('is not snake_case'))).toBe(true);
    expect(errs.some((e) => e.includes('"fr" is not one of'))).toBe(true);
    expect(errs.some((e) => e.includes('split must be'))).toBe(true);
  });

  it('a tool relevant to fewer than two requests, or to one split only', () => {
    const errs = checkMutated((tools, queries) => {
      tools.push({ id: 'lonely_tool', lang: 'en', description: 'Does one thing.' });
      queries[0].relevant = [...queries[0].relevant, 'lonely_tool'];
      const id = tools[5].id;
      for (const q of queries) if (q.relevant.includes(id)) q.split = 'dev';
    });
    expect(errs.some((e) => e.startsWith('tool lonely_tool is relevant to 1 requests'))).toBe(true);
    expect(errs.some((e) => /tool \S+ is relevant to dev \d+ and test 0 requests/.test(e))).toBe(true);
  });

  it('a language without a test split', () => {
    const errs = checkMutated((_tools, queries) => {
      for (const q of queries) if (q.lang === 'ko') q.split = 'dev';
    });
    expect(errs.some((e) => e.startsWith('requests in ko: dev'))).toBe(true);
  });

  it('too few paraphrases in a language', () => {
    // Append each relevant tool's id to every Japanese request: now they all share a word.
    const errs = checkMutated((_tools, queries) => {
      for (const q of queries) if (q.lang === 'ja') q.query += ` ${q.relevant[0]}`;
    });
    expect(errs.some((e) => e.startsWith('requests in ja sharing no content word'))).toBe(true);
    expect(errs.some((e) => e.startsWith('requests in ja sharing no word at all'))).toBe(true);
  });

  it('too few tools or requests, and a lopsided language mix', () => {
    const errs = checkMutated((tools, queries) => {
      const keep = new Set(tools.filter((t) => t.lang !== 'ko').map((t) => t.id));
      tools.splice(0, tools.length, ...tools.filter((t) => keep.has(t.id)));
      const kept = queries.filter((q) => q.relevant.every((id: string) => keep.has(id)));
      // the set has more than 720 requests without its Korean tools: keep one too few
      queries.splice(0, queries.length, ...kept.slice(0, 719));
    });
    expect(errs.some((e) => /^\d+ tools; at least 120 expected$/.test(e))).toBe(true);
    expect(errs.some((e) => /^\d+ requests; at least 720 expected$/.test(e))).toBe(true);
    expect(errs.some((e) => e.startsWith('tools in ko: 0.0%'))).toBe(true);
  });

  it('a description longer than three sentences, and a repeated request', () => {
    const errs = checkMutated((tools, queries) => {
      tools[0].description = 'One. Two. Three. Four.';
      queries[1].query = queries[0].query;
    });
    expect(errs.some((e) => e.includes('description has 4 sentences'))).toBe(true);
    expect(errs.some((e) => e.includes('same request text as'))).toBe(true);
  });

  it('Han characters the fold table has not looked up', () => {
    const errs = checkMutated((_tools, queries) => {
      queries[0].query += ' 龘';
    });
    expect(errs.some((e) => e.startsWith('han-fold.json has not looked up 1 Han characters'))).toBe(true);
  });
});
