// search.mode 'enhanced' (issue 5): multilingual, word-form-aware and typo-tolerant search.
// Compatible mode stays the default and identical to the reference (differential.spec.ts).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool } from '@mastra/core/tools';
import { Native, Reference, firstHit, step, tool } from '../support/tool-search';

const catalog = {
  // Traditional Chinese
  weather_tw: tool('weather_tw', '查詢城市的天氣預報與氣溫'),
  // Simplified Chinese
  translate_cn: tool('translate_cn', '把文本翻译成其他语言'),
  // Japanese
  train_jp: tool('train_jp', '電車の乗り換え案内と時刻表を調べる'),
  // Korean
  restaurant_kr: tool('restaurant_kr', '근처 맛집과 식당을 검색하고 예약합니다'),
  // English, identifiers in several styles
  sendEmail: tool('sendEmail', 'Deliver a message to a recipient mailbox'),
  'create-issue': tool('create-issue', 'Open a new ticket in the bug tracker'),
  GetStockQuote: tool('GetStockQuote', 'Latest share price for a ticker symbol'),
  calendar_schedule: tool('calendar_schedule', 'Schedule meetings and events on a calendar'),
  // mixed scripts and full-width characters
  pdf_tools: tool('pdf_tools', 'ＰＤＦ 文件を結合・分割する merge and split documents'),
  currency: createTool({
    id: 'currency',
    description: 'Convert between currencies',
    inputSchema: z.object({ amount: z.number().describe('How much money'), iban: z.string().describe('bank account number') }),
    execute: async () => ({}),
  }),
};

const top = firstHit;
const enhanced = () => new Native({ tools: catalog, search: { mode: 'enhanced' } });
const compatible = () => new Native({ tools: catalog });

describe("ToolSearchProcessor search.mode: 'enhanced'", () => {
  const cases: Array<[string, string, string]> = [
    ['Traditional Chinese, same script', '天氣預報', 'weather_tw'],
    ['Simplified query, Traditional tool (cross-script)', '天气预报', 'weather_tw'],
    ['Traditional query, Simplified tool (cross-script)', '翻譯文本', 'translate_cn'],
    ['Simplified Chinese, same script', '翻译', 'translate_cn'],
    ['Japanese', '乗り換え案内', 'train_jp'],
    ['Japanese query with Han only', '時刻表', 'train_jp'],
    ['Korean', '맛집 예약', 'restaurant_kr'],
    ['full-width query, half-width tool', 'ｍｅｅｔｉｎｇｓ', 'calendar_schedule'],
    ['half-width query, full-width tool', 'PDF merge', 'pdf_tools'],
    ['English inflection', 'scheduling a meeting', 'calendar_schedule'],
    ['plural of a word only in the id', 'emails', 'sendEmail'],
    ['camelCase id split into words', 'send email', 'sendEmail'],
    ['kebab-case id', 'create issues', 'create-issue'],
    ['PascalCase id', 'stock quote', 'GetStockQuote'],
    ['typo (distance 1)', 'calender', 'calendar_schedule'],
    ['typo (distance 2, long word)', 'schedulling meetngs', 'calendar_schedule'],
    ['parameter description', 'bank account', 'currency'],
    ['parameter name', 'iban', 'currency'],
  ];
  for (const [what, query, expected] of cases) {
    it(`${what}: "${query}" finds ${expected} first`, async () => {
      expect(await top(enhanced(), query)).toBe(expected);
    });
  }

  it('compatible mode (the reference) misses the multilingual, word-form and typo queries', async () => {
    for (const q of ['天气预报', '翻譯文本', '乗り換え案内', '맛집 예약', 'emails', 'calender', 'stock quote', 'bank account']) {
      expect((await (await step(new Reference({ tools: catalog }))).search(q)).results.map((r: any) => r.name)).not.toContain(
        cases.find((c) => c[1] === q)![2],
      );
      expect((await (await step(compatible())).search(q))).toEqual(await (await step(new Reference({ tools: catalog }))).search(q));
    }
  });

  it('keeps the result shape, messages, topK and minScore semantics', async () => {
    const p = new Native({ tools: catalog, search: { mode: 'enhanced', topK: 2 } });
    const r = await (await step(p)).search('schedule meetings calendar events');
    expect(r.results.length).toBeLessThanOrEqual(2);
    expect(Object.keys(r.results[0])).toEqual(['name', 'description', 'score']);
    expect(r.message).toBe(`Found ${r.results.length} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`);
    const best = r.results[0].score;
    const strict = new Native({ tools: catalog, search: { mode: 'enhanced', minScore: best } });
    for (const x of (await (await step(strict)).search('schedule meetings calendar events')).results) expect(x.score).toBeGreaterThan(best - 0.005);
    expect((await (await step(enhanced())).search('zzzz qqqq')).message).toBe('No tools found matching "zzzz qqqq". Try different keywords.');
  });

  it('"Did you mean" ranks names by closeness, so typos get the right suggestion first', async () => {
    const s = await step(enhanced(), { threadId: 't' });
    expect((await s.load({ toolName: 'calender_schedule' })).message).toBe(
      'Tool "calender_schedule" not found. Did you mean: calendar_schedule?',
    );
    const ref = await step(new Reference({ tools: catalog }), { threadId: 't' });
    expect((await ref.load({ toolName: 'calender_schedule' })).message).toBe(
      'Tool "calender_schedule" not found. Use search_tools to find available tools.',
    );
    // substring matches are still suggested
    expect((await s.load({ toolName: 'calendar' })).message).toContain('Did you mean: calendar_schedule');
  });

  it('works with includeResolvedTools and a filter', async () => {
    const p = new Native({
      tools: { weather_tw: catalog.weather_tw },
      includeResolvedTools: true,
      search: { mode: 'enhanced' },
      filter: ({ toolName }: any) => toolName !== 'blocked_mail',
    });
    const resolved = { mcp_mail: tool('mcp_mail', 'Reads emails from the inbox'), blocked_mail: tool('blocked_mail', 'emails emails') };
    const s = await step(p, { threadId: 't', tools: resolved });
    expect((await s.search('email')).results.map((r: any) => r.name)).toEqual(['mcp_mail']);
    expect((await s.search('天气')).results.map((r: any) => r.name)).toEqual(['weather_tw']);
    await s.load({ toolName: 'mcp_mail' });
    expect((await step(p, { threadId: 't', tools: resolved })).result.tools.mcp_mail).toBe(resolved.mcp_mail);
  });
});

// Issue 13: CJK requests as people type them: Korean particles and request endings, Japanese
// sentences (kanji, kana particles, katakana words), mixed scripts, single characters.
describe("search.mode 'enhanced': CJK requests", () => {
  const cjk = {
    s3_upload_kr: tool('s3_upload_kr', 'S3 버킷에 파일을 업로드합니다. 버킷 이름과 객체 키를 지정합니다.'),
    s3_download_kr: tool('s3_download_kr', 'S3 버킷에서 객체를 다운로드합니다.'),
    coupon_kr: tool('coupon_kr', '할인 쿠폰을 만듭니다. 할인율을 입력해 주세요.'),
    weather_kr: tool('weather_kr', '지정한 위치의 현재 날씨와 기온을 알려줍니다.'),
    restaurant_kr: tool('restaurant_kr', '근처 맛집과 식당을 검색합니다.'),
    order_cancel_kr: tool('order_cancel_kr', '아직 발송되지 않은 주문을 취소합니다.'),
    weather_jp: tool('weather_jp', '指定した都市の現在の天気と気温を返します。'),
    mail_jp: tool('mail_jp', 'メールを送信します。宛先と件名を指定します。'),
    github_pr_create: tool('github_pr_create', 'Open a pull request on GitHub from a branch.'),
    sky_cn: tool('sky_cn', '天空 气球 天上 气温 天真 气候'),
    weather_cn: tool('weather_cn', '查询今天天气'),
  };
  const names = async (p: any, query: string) => (await (await step(p)).search(query)).results.map((r: any) => r.name);
  const enhancedCjk = () => new Native({ tools: cjk, search: { mode: 'enhanced' } });

  const cases: Array<[string, string, string]> = [
    ['Korean particle glued to a Latin word', 'S3에서 어제 올린 로그 파일 찾아줘', 's3_upload_kr'],
    ['Korean topic particle', '오늘 날씨는 어때?', 'weather_kr'],
    ['Korean object particle and request ending', '식당을 검색해줘', 'restaurant_kr'],
    ['Korean 해줘 vs 합니다', '주문 취소해줘', 'order_cancel_kr'],
    ['Japanese sentence', '東京の天気を教えて', 'weather_jp'],
    ['Japanese katakana word and okurigana', '上司にメールを送ってください', 'mail_jp'],
    // PR is a word of the tool id; nothing lexical ties 幫我開個 to "open a pull request"
    ['mixed script, Latin word in the id', '幫我開個 PR', 'github_pr_create'],
    ['mixed script, Korean', 'PR 좀 올려줘', 'github_pr_create'],
  ];
  for (const [what, query, expected] of cases) {
    it(`${what}: "${query}" finds ${expected} first`, async () => {
      expect((await names(enhancedCjk(), query))[0]).toBe(expected);
    });
  }

  it('a particle or request ending changes nothing: the same ranking as the bare word', async () => {
    for (const [withEnding, bare] of [
      ['날씨는', '날씨'],
      ['S3에서', 'S3'],
      ['식당을 검색해 주세요', '식당 검색'],
      ['メールを', 'メール'],
    ]) {
      expect(await (await step(enhancedCjk())).search(withEnding), withEnding).toEqual(await (await step(enhancedCjk())).search(bare));
    }
    // (with bigrams alone, 에서 and 주세요 matched s3_download_kr's 버킷에서 and coupon_kr's 입력해 주세요)
    // a request made only of particles and endings matches nothing
    expect((await (await step(enhancedCjk())).search('에서 좀 해 주세요')).results).toEqual([]);
  });

  it('an exact bigram outranks the same characters apart; the characters alone still match', async () => {
    for (const query of ['天气', '天氣']) {
      const r = (await (await step(enhancedCjk())).search(query)).results;
      // weather_jp's Japanese 天気 folds to 天气 too
      expect(r.map((x: any) => x.name).sort(), query).toEqual(['sky_cn', 'weather_cn', 'weather_jp']);
      expect(r[2].name, query).toBe('sky_cn');
      expect(r[1].score, query).toBeGreaterThan(r[2].score * 2);
    }
    // one character: every tool with it
    expect((await names(enhancedCjk(), '气')).sort()).toEqual(['sky_cn', 'weather_cn', 'weather_jp']);
  });

  it('compatible mode (the reference) misses particles glued to words', async () => {
    for (const [query, want] of [
      ['S3에서', 's3_upload_kr'],
      ['날씨는', 'weather_kr'],
      ['東京の天気を教えて', 'weather_jp'],
    ]) {
      expect(await names(new Reference({ tools: cjk }), query), query).not.toContain(want);
      expect(await names(new Native({ tools: cjk }), query), query).not.toContain(want);
    }
  });
});
