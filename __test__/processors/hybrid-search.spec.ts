// search.mode 'hybrid' (issue 13): the enhanced ranking fused with a static embedding model's.
// A tiny hand-made model (written by this spec in the model.bin format) shows the mechanics:
// a request sharing no word with any description is found only by hybrid, CJK requests reach
// English descriptions; options and model loading fail with errors naming what to fix.
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { SkillSearchProcessor, ToolSearchProcessor } from '../../index.js';
import { call, step, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';
import { runNode } from '../support/run-node';

const require = createRequire(import.meta.url);
const semantic = require('../../js/semantic.js');
const { NativeSemanticModel } = require('../../binding.js');

// ---- a tiny model: axis 0 = weather, 1 = email, 2 = code review, 3 = noise ----

const DIM = 4;
const axis = (at: number, x: number) => Array.from({ length: DIM }, (_, i) => (i === at ? x : 0));
const PIECES: Array<[string, number, number[]]> = [
  ['<unk>', 0, [0, 0, 0, 0]],
  ['\u2581', -2, [0, 0, 0, 0]],
  ['\u2581weather', -3, axis(0, 1)],
  ['\u2581forecast', -4, axis(0, 0.8)],
  ['\u2581rain', -4, axis(0, 0.6)],
  ['\u2581will', -2, axis(3, 0.1)],
  ['\u2581it', -2, axis(3, 0.1)],
  ['\u2581send', -3, axis(1, 0.5)],
  ['\u2581email', -3, axis(1, 1)],
  ['\u2581mail', -3.5, axis(1, 0.9)],
  ['\u2581message', -4, axis(1, 0.7)],
  ['\u2581review', -4, axis(2, 1)],
  ['\u2581code', -4, axis(2, 0.6)],
  ['天气', -5, axis(0, 1)],
  ['天氣', -5, axis(0, 1)],
  ['メール', -5, axis(1, 1)],
  ['메일', -5, axis(1, 1)],
];

/** model.bin bytes per the format: header, pieces, per-row scales, i8 rows. */
function modelBytes(pieces = PIECES): Buffer {
  const parts: Buffer[] = [Buffer.from('MNPSEMB1')];
  const u32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    return b;
  };
  const f32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    return b;
  };
  parts.push(u32(DIM), u32(pieces.length), u32(0), u32(0b111));
  for (const [piece, score] of pieces) {
    const bytes = Buffer.from(piece, 'utf8');
    const len = Buffer.alloc(2);
    len.writeUInt16LE(bytes.length);
    parts.push(len, bytes, f32(score));
  }
  const scales = pieces.map(([, , v]) => Math.max(...v.map(Math.abs)) / 127);
  for (const s of scales) parts.push(f32(s));
  pieces.forEach(([, , v], i) => parts.push(Buffer.from(Int8Array.from(v.map(x => (scales[i] ? Math.round(x / scales[i]) : 0))).buffer)));
  return Buffer.concat(parts);
}

const SKILLS = [
  { name: 'weather-report', description: 'Write a forecast summary', body: 'Use the forecast data.' },
  { name: 'email-writer', description: 'Draft a message for a recipient', body: 'Keep the mail short.' },
  { name: 'code-review', description: 'Review a pull request', body: 'Check the code.' },
  { name: 'git-workflow', description: 'Branching and commit conventions', body: 'Rebase before merging.' },
];

let dir: string;
let modelDir: string;
let fx: TempWorkspace;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hybrid-search-'));
  modelDir = join(dir, 'model');
  mkdirSync(modelDir);
  writeFileSync(join(modelDir, 'model.bin'), modelBytes());
  fx = tempSkillsWorkspace(SKILLS);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  fx.cleanup();
});

async function skillNames(search: Record<string, unknown>, query: string): Promise<string[]> {
  const p = new SkillSearchProcessor({ workspace: fx.make(), search });
  try {
    const { tools } = await step(p, { threadId: 'h' });
    return (await call(tools.search_skills, { query })).results.map((r: any) => r.name);
  } finally {
    p.dispose();
  }
}

describe('SkillSearchProcessor hybrid', () => {
  it('finds skills by meaning where enhanced finds none', async () => {
    expect(await skillNames({ mode: 'enhanced' }, 'will it rain')).toEqual([]);
    expect((await skillNames({ mode: 'hybrid', model: modelDir }, 'will it rain'))[0]).toBe('weather-report');
    // CJK requests against English skills
    expect((await skillNames({ mode: 'hybrid', model: modelDir }, '天氣'))[0]).toBe('weather-report');
    expect((await skillNames({ mode: 'hybrid', model: modelDir }, 'メール'))[0]).toBe('email-writer');
    expect((await skillNames({ mode: 'hybrid', model: modelDir }, '메일'))[0]).toBe('email-writer');
  });

  it('keeps lexical matches first, respects topK and scores in (0, 1]', async () => {
    const names = await skillNames({ mode: 'hybrid', model: join(modelDir, 'model.bin'), topK: 2 }, 'branching conventions');
    expect(names[0]).toBe('git-workflow');
    expect(names.length).toBeLessThanOrEqual(2);
    const p = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid', model: modelDir, topK: 10 } });
    const { tools } = await step(p, { threadId: 'h' });
    const { results } = await call(tools.search_skills, { query: 'send email about the forecast' });
    p.dispose();
    expect(results.length).toBeGreaterThanOrEqual(2);
    const scores = results.map((r: any) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const s of scores) expect(s > 0 && s <= 1).toBe(true);
    // minScore applies to the fused score
    const high = await skillNames({ mode: 'hybrid', model: modelDir, topK: 10, minScore: scores[0] }, 'send email about the forecast');
    expect(high.length).toBeLessThan(results.length);
  });

  it('leaves compatible and enhanced results unchanged', async () => {
    const queries = ['forecast', 'review pull request', 'commit', 'will it rain'];
    const before = [];
    for (const q of queries) before.push([await skillNames({}, q), await skillNames({ mode: 'enhanced' }, q)]);
    await skillNames({ mode: 'hybrid', model: modelDir }, 'forecast');
    const after = [];
    for (const q of queries) after.push([await skillNames({}, q), await skillNames({ mode: 'enhanced' }, q)]);
    expect(after).toEqual(before);
    expect(before[0][0]).toContain('weather-report');
  });
});

const TOOLS: Array<[string, string]> = [
  ['weather_forecast', 'Get the forecast for a location'],
  ['send_email', 'Send a message to a recipient'],
  ['review_code', 'Review a pull request'],
  ['calendar_schedule', 'Schedule an event on the calendar'],
];

function toolsOf(list: Array<[string, string]>) {
  return Object.fromEntries(list.map(([id, description]) => [id, createTool({ id, description, execute: async () => ({ id }) })]));
}

async function toolStep(p: ToolSearchProcessor, stepTools: Record<string, unknown> = {}) {
  const result = await p.processInputStep({
    tools: stepTools,
    messageList: new MessageList({ threadId: 'h', resourceId: 'r' }),
    requestContext: new RequestContext(),
    messages: [],
    stepNumber: 0,
  } as any);
  return result.tools as Record<string, any>;
}

async function toolResults(search: Record<string, unknown>, query: string, tools = toolsOf(TOOLS)) {
  const p = new ToolSearchProcessor({ tools, search: search as any });
  try {
    const out = await (await toolStep(p)).search_tools.execute({ query }, {});
    return out.results as Array<{ name: string; score: number }>;
  } finally {
    p.dispose?.();
  }
}

describe('ToolSearchProcessor hybrid', () => {
  it('finds tools by meaning where enhanced finds none', async () => {
    expect(await toolResults({ mode: 'enhanced' }, 'will it rain')).toEqual([]);
    expect((await toolResults({ mode: 'hybrid', model: modelDir }, 'will it rain'))[0].name).toBe('weather_forecast');
    expect((await toolResults({ mode: 'hybrid', model: modelDir }, '天氣'))[0].name).toBe('weather_forecast');
    expect((await toolResults({ mode: 'hybrid', model: modelDir }, 'メール'))[0].name).toBe('send_email');
    expect((await toolResults({ mode: 'hybrid', model: modelDir }, '메일'))[0].name).toBe('send_email');
    // a lexical match stays first
    expect((await toolResults({ mode: 'hybrid', model: modelDir }, 'calendar'))[0].name).toBe('calendar_schedule');
  });

  it('scores in (0, 1], sorted, topK and minScore respected', async () => {
    const all = await toolResults({ mode: 'hybrid', model: modelDir, topK: 10 }, 'send email about the forecast');
    expect(all.length).toBeGreaterThanOrEqual(2);
    const scores = all.map(r => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const s of scores) expect(s > 0 && s <= 1).toBe(true);
    expect(await toolResults({ mode: 'hybrid', model: modelDir, topK: 1 }, 'send email about the forecast')).toHaveLength(1);
    // minScore applies to the fused score (shown rounded to 2 decimals)
    const min = scores[scores.length - 1] + 0.01;
    const above = await toolResults({ mode: 'hybrid', model: modelDir, topK: 10, minScore: min }, 'send email about the forecast');
    expect(above.length).toBeGreaterThan(0);
    expect(above.length).toBeLessThan(all.length);
    for (const r of above) expect(r.score).toBeGreaterThanOrEqual(min - 0.005);
  });

  it('builds large catalogs off-thread and request tools as a hybrid overlay', async () => {
    // > 40,000 characters: the static catalog is indexed on a pool thread
    const filler: Array<[string, string]> = Array.from({ length: 800 }, (_, i) => [`filler_${i}`, `Unrelated helper number ${i} for spreadsheets and ledgers`]);
    const big = await toolResults({ mode: 'hybrid', model: modelDir }, 'will it rain', toolsOf([...filler, ...TOOLS]));
    expect(big[0].name).toBe('weather_forecast');
    const p = new ToolSearchProcessor({ tools: toolsOf(TOOLS), includeResolvedTools: true, search: { mode: 'hybrid', model: modelDir } });
    const request = toolsOf([['mail_merge', 'Merge mail for many recipients']]);
    const tools = await toolStep(p, request);
    const out = await tools.search_tools.execute({ query: 'mail' }, {});
    p.dispose?.();
    expect(out.results.map((r: any) => r.name)).toContain('mail_merge');
  });

  it('leaves compatible and enhanced results unchanged', async () => {
    const queries = ['forecast', 'review pull request', 'schedule', 'will it rain'];
    const run = async () => {
      const rows = [];
      for (const q of queries) rows.push([await toolResults({}, q), await toolResults({ mode: 'enhanced' }, q)]);
      return rows;
    };
    const before = await run();
    await toolResults({ mode: 'hybrid', model: modelDir }, 'forecast');
    expect(await run()).toEqual(before);
    expect(before[0][0].map(r => r.name)).toContain('weather_forecast');
  });

  it('validates options and names the model location', () => {
    const make = (search: unknown) => new ToolSearchProcessor({ tools: toolsOf(TOOLS), search: search as any });
    expect(() => make({ mode: 'fast' })).toThrow("ToolSearchProcessor: options.search.mode must be 'compatible', 'enhanced' or 'hybrid'");
    expect(() => make({ mode: 'hybrid', model: '' })).toThrow(TypeError);
    expect(() => make({ mode: 'compatible', model: modelDir })).toThrow("options.search.model is only used with search.mode 'hybrid'");
    expect(() => make({ mode: 'hybrid', model: join(dir, 'missing') })).toThrow(/ToolSearchProcessor: options\.search\.model ".*missing" does not exist/);
  });
});

// The distilled model committed as packages/model-multilingual (the npm package's content).
const REPO_MODEL = join(__dirname, '..', '..', 'packages', 'model-multilingual');
const EVERYDAY: Array<[string, string]> = [
  ['weather_forecast', 'Get the weather forecast for a city'],
  ['send_email', 'Send an email message to a recipient'],
  ['create_calendar_event', 'Schedule a meeting on the calendar'],
  ['translate_text', 'Translate text between languages'],
  ['search_flights', 'Find airline tickets between two airports'],
  ['currency_convert', 'Convert an amount between currencies'],
  ['github_create_issue', 'Open a new issue in a GitHub repository'],
  ['play_music', 'Play songs and playlists'],
];

describe('hybrid with the distilled model', () => {
  // Requests sharing no word with any description: enhanced finds nothing, hybrid the right tool.
  const PARAPHRASES: Array<[string, string]> = [
    ['will it rain tomorrow', 'weather_forecast'],
    ['how many yen is 20 dollars', 'currency_convert'],
    ['put on some jazz', 'play_music'],
    ['file a bug report', 'github_create_issue'],
    ['明天会下雨吗', 'weather_forecast'],
    ['음악 틀어줘', 'play_music'],
  ];

  it('ToolSearchProcessor: paraphrases found only by hybrid', async () => {
    const tools = toolsOf(EVERYDAY);
    const got = [];
    for (const [query] of PARAPHRASES) {
      const enhanced = await toolResults({ mode: 'enhanced' }, query, tools);
      const hybrid = await toolResults({ mode: 'hybrid', model: REPO_MODEL }, query, tools);
      got.push([query, enhanced.length, hybrid[0]?.name]);
    }
    expect(got).toEqual(PARAPHRASES.map(([query, tool]) => [query, 0, tool]));
  });

  it('ToolSearchProcessor: CJK requests find English-described tools among look-alike CRUD tools', async () => {
    // a large integration catalog's filler: 100 near-identical tools
    const list: Array<[string, string]> = [];
    for (const service of ['github', 'jira', 'slack', 'stripe', 'notion'])
      for (const action of ['create', 'update', 'delete', 'list'])
        for (const object of ['issue', 'ticket', 'message', 'invoice', 'page']) list.push([`${service}_${action}_${object}`, `${action} a ${object} in ${service}`]);
    list.push(
      ['get_weather', 'Get the current weather forecast and temperature for a city'],
      ['send_email', 'Send an email to a recipient with a subject and body'],
      ['translate_text', 'Translate text from one language into another'],
      ['book_flight', 'Book an airline flight between two airports on a date'],
    );
    const tools = toolsOf(list);
    const requests: Array<[string, string]> = [
      ['明天上海的天气怎么样', 'get_weather'],
      ['東京の天気を教えて', 'get_weather'],
      ['동료에게 이메일을 보내 주세요', 'send_email'],
      ['来週の大阪行きの飛行機を予約したい', 'book_flight'],
      ['把这段话翻译成英语', 'translate_text'],
    ];
    const got = [];
    for (const [query] of requests) got.push([query, (await toolResults({ mode: 'hybrid', model: REPO_MODEL }, query, tools))[0]?.name]);
    expect(got).toEqual(requests);
  });

  it('script means bring a request closer to its translation than to unrelated text in its own language', () => {
    // The same model without its script-means section (flag bit3 cleared, section cut out; the
    // English tail's length, flag bit4, stays after it).
    const file = join(REPO_MODEL, 'model.bin');
    const buf = readFileSync(file);
    const dim = buf.readUInt32LE(8);
    const flags = buf.readUInt32LE(20);
    const tailBytes = flags & 16 ? 4 : 0;
    const latinTail = tailBytes ? buf.readUInt32LE(buf.length - 4) : 0;
    const section = 4 + ['latin', 'zh-Hans', 'zh-Hant', 'ja', 'ko'].reduce((n, s) => n + 1 + s.length + 4 * dim, 0);
    const end = buf.length - tailBytes;
    const bare = Buffer.concat([buf.subarray(0, end - section), buf.subarray(end)]);
    bare.writeUInt32LE(flags & ~8, 20);
    const withMeans = semantic.loadModelFile(file);
    const without = NativeSemanticModel.fromBytes(join(dir, 'no-means.bin'), bare);
    // As the search compares texts: two in different scripts by the dimensions before the
    // Latin-only tail (the CJK text has none), renormalized.
    const cos = (m: any, x: string, y: string) => {
      let [u, v] = [m.embed(x), m.embed(y)];
      const head = (w: number[]) => {
        const h = w.slice(0, dim - latinTail);
        const n = Math.hypot(...h);
        return n > 0 ? h.map((a) => a / n) : h;
      };
      if (latinTail && /[^\u0000-\u024f]/.test(x + y)) [u, v] = [head(u), head(v)];
      return u.reduce((s: number, a: number, i: number) => s + a * v[i], 0);
    };
    // [request, its English translation, an unrelated request in the request's language]
    const cases: Array<[string, string, string]> = [
      ['明天的天气预报', "tomorrow's weather forecast", '发送一封电子邮件'],
      ['查詢明天的天氣', 'check the weather tomorrow', '寄一封電子郵件'],
      ['東京のホテルを予約する', 'book a hotel in Tokyo', '音楽を再生する'],
    ];
    for (const [request, translation, unrelated] of cases) {
      // without the means the language wins; with them the meaning does
      expect(cos(without, request, translation), request).toBeLessThan(cos(without, request, unrelated));
      expect(cos(withMeans, request, translation), request).toBeGreaterThan(cos(withMeans, request, unrelated));
    }
    // Korean sentences sharing only their polite ending still look alike, but less so
    const [ko, en, other] = ['음악을 재생해 줘', 'play some music', '호텔을 예약해 줘'];
    expect(cos(withMeans, ko, en)).toBeGreaterThan(cos(without, ko, en) + 0.1);
    expect(cos(withMeans, ko, other)).toBeLessThan(cos(without, ko, other) - 0.1);
  });

  it('SkillSearchProcessor: a paraphrase found only by hybrid', async () => {
    const skills = tempSkillsWorkspace(
      EVERYDAY.map(([id, description]) => ({ name: id.replace(/_/g, '-'), description, body: `${description}.` })),
    );
    try {
      const names = async (search: Record<string, unknown>, query: string) => {
        const p = new SkillSearchProcessor({ workspace: skills.make(), search });
        const { tools } = await step(p, { threadId: 'm' });
        const out = (await call(tools.search_skills, { query })).results.map((r: any) => r.name);
        p.dispose();
        return out;
      };
      expect(await names({ mode: 'enhanced' }, 'will it rain tomorrow')).toEqual([]);
      expect((await names({ mode: 'hybrid', model: REPO_MODEL }, 'will it rain tomorrow'))[0]).toBe('weather-forecast');
    } finally {
      skills.cleanup();
    }
  });
});

describe('hybrid options and model loading', () => {
  const make = (search: unknown) => new SkillSearchProcessor({ workspace: fx.make(), search: search as any });

  it('validates search.mode and search.model', () => {
    expect(() => make({ mode: 'semantic' })).toThrow(TypeError);
    expect(() => make({ mode: 'semantic' })).toThrow("options.search.mode must be 'compatible', 'enhanced' or 'hybrid'");
    for (const model of ['', 42, null, {}]) {
      expect(() => make({ mode: 'hybrid', model })).toThrow(TypeError);
      expect(() => make({ mode: 'hybrid', model })).toThrow('options.search.model must be a non-empty string');
    }
    expect(() => make({ mode: 'enhanced', model: modelDir })).toThrow(TypeError);
    expect(() => make({ model: modelDir })).toThrow("options.search.model is only used with search.mode 'hybrid'");
  });

  it('names the option for a missing path, a folder without model.bin and a corrupt file', () => {
    expect(() => make({ mode: 'hybrid', model: join(dir, 'nope') })).toThrow(/options\.search\.model ".*nope" does not exist/);
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    expect(() => make({ mode: 'hybrid', model: empty })).toThrow('has no model.bin');
    const corrupt = join(dir, 'corrupt.bin');
    writeFileSync(corrupt, Buffer.from('not a model at all'));
    expect(() => make({ mode: 'hybrid', model: corrupt })).toThrow(/options\.search\.model: .*not a usable model: .*MNPSEMB1/);
    const truncated = join(dir, 'truncated.bin');
    writeFileSync(truncated, modelBytes().subarray(0, 60));
    expect(() => make({ mode: 'hybrid', model: truncated })).toThrow(/truncated/);
    // Only a regular file is read: a device would never end, a FIFO would block.
    expect(() => make({ mode: 'hybrid', model: '/dev/zero' })).toThrow(/options\.search\.model: cannot read the model file \/dev\/zero: not a regular file/);
    // Stable codes: missing (a path or folder without model.bin) vs present but unusable.
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error: any) {
        return error.code;
      }
    };
    expect(codeOf(() => make({ mode: 'hybrid', model: join(dir, 'nope') }))).toBe('MASTRA_NATIVE_MODEL_NOT_FOUND');
    expect(codeOf(() => make({ mode: 'hybrid', model: empty }))).toBe('MASTRA_NATIVE_MODEL_NOT_FOUND');
    expect(codeOf(() => make({ mode: 'hybrid', model: corrupt }))).toBe('MASTRA_NATIVE_MODEL_INVALID');
    expect(codeOf(() => semantic.modelFileOf(undefined, 'X', [join(dir, 'app', 'noop.js')]))).toBe('MASTRA_NATIVE_MODEL_NOT_FOUND');
  });

  it('names the model package when neither the option nor the package is there', () => {
    const nowhere = join(dir, 'app', 'noop.js');
    expect(() => semantic.modelFileOf(undefined, 'ToolSearchProcessor', [nowhere])).toThrow(
      "ToolSearchProcessor: search.mode 'hybrid' needs the model package: npm install mastra-native-processors-model-multilingual (or pass search.model",
    );
  });

  it('finds the package from the application folder', () => {
    const app = join(dir, 'app2');
    const pkg = join(app, 'node_modules', 'mastra-native-processors-model-multilingual');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'mastra-native-processors-model-multilingual', main: 'index.js' }));
    writeFileSync(join(pkg, 'index.js'), 'module.exports = { modelPath: __dirname };');
    writeFileSync(join(pkg, 'model.bin'), modelBytes());
    expect(semantic.modelFileOf(undefined, 'X', [join(app, 'noop.js')])).toBe(join(pkg, 'model.bin'));
  });

  it('loads each model file once per process', () => {
    const a = semantic.loadSemanticModel(modelDir, 'X');
    const b = semantic.loadSemanticModel(join(modelDir, 'model.bin'), 'X');
    expect(a).toBe(b);
    // the native registry shares the model even between separate handles
    expect(semantic.loadModelFile(join(modelDir, 'model.bin')).sameModel(a)).toBe(true);
    expect(NativeSemanticModel.loaded(realpathSync(join(modelDir, 'model.bin'))).sameModel(a)).toBe(true);
    expect(NativeSemanticModel.loaded(join(modelDir, 'elsewhere.bin'))).toBeNull();
    expect(a.dim).toBe(DIM);
    expect(a.vocabSize).toBe(PIECES.length);
    expect(Array.from(a.embed('weather') as ArrayLike<number>).map((x) => Math.round(x * 100) / 100)).toEqual([1, 0, 0, 0]);
  });
});

describe('model loading with large buffers alive', () => {
  // The addon never opens the model file itself: from WebAssembly (npm run test:wasm) a file
  // access goes through node:wasi, and with two ~46 MB Buffers alive its path calls crashed
  // Node with SIGSEGV (V8 fast API calls on shared wasm memory). The JS layer reads the file.
  it('loads the model and reports a missing file without crashing the process', async () => {
    const semanticJs = JSON.stringify(join(__dirname, '..', '..', 'js', 'semantic.js'));
    const script = `
      const semantic = require(${semanticJs});
      const held = [Buffer.alloc(46e6, 1), Buffer.alloc(46e6, 2)];
      const model = semantic.loadModelFile(${JSON.stringify(join(REPO_MODEL, 'model.bin'))});
      let missing;
      try { semantic.loadModelFile('/nonexistent/model.bin'); } catch (error) { missing = error.message; }
      console.log(model.dim, held.length, missing);`;
    const r = await runNode(['--disable-warning=ExperimentalWarning', '-e', script], 60_000);
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^384 2 cannot read the model file \/nonexistent\/model\.bin: ENOENT/);
  }, 70_000);
});

describe('hybrid search over a catalog large enough to share its vector scan', () => {
  // 6,000 realistic tools × 384 model dimensions: 2.3 MB of vectors, past the size from which a
  // search shares the scan with the core's helper thread (crates/core/src/semantic/helper.rs). The
  // parked helper must not keep a process or a worker alive, and a worker's searches must match
  // the main thread's.
  const root = join(__dirname, '..', '..');
  const search = `
    const { realisticTools, metatoolQueries } = await import(${JSON.stringify(pathToFileURL(join(root, 'bench/tool-search-realistic.mjs')).href)});
    const { ToolSearchProcessor } = await import(${JSON.stringify(pathToFileURL(join(root, 'index.mjs')).href)});
    const { MessageList } = await import('@mastra/core/agent');
    const { RequestContext } = await import('@mastra/core/request-context');
    const p = new ToolSearchProcessor({ tools: realisticTools(6000), search: { mode: 'hybrid' } });
    const requestContext = new RequestContext();
    requestContext.set('mastra__threadId', 't');
    const { tools } = await p.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 't', resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 });
    const found = [];
    for (const query of metatoolQueries().slice(0, 20)) found.push((await tools.search_tools.execute({ query }, {})).results.map((r) => r.name).join(','));
    const answer = JSON.stringify(found);`;
  const script = `
    const { Worker } = await import('node:worker_threads');
    const inWorker = await new Promise((resolve, reject) => {
      const w = new Worker(${JSON.stringify(`(async () => {${search}
        (await import('node:worker_threads')).parentPort.postMessage(answer);
      })();`)}, { eval: true });
      w.on('message', resolve);
      w.on('error', reject);
    });
    ${search}
    console.log(answer === inWorker ? 'same' : 'different', found.filter((f) => f.split(',').length === 5).length);`;

  it('a worker finds what the main thread finds, and the process exits on its own', async () => {
    const r = await runNode(['--input-type=module', '-e', script], 60_000);
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull(); // not killed by the timeout
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('same 20');
  }, 70_000);
});
