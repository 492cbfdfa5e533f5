// The real-MCP-catalog benchmark data (data/mcp) is well formed: every label names a recorded tool,
// the dev/test split follows its documented rule and covers every server and language, and the
// tables in data/mcp/README.md match the files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DATA_DIR = join(__dirname, '..', '..', 'data', 'mcp');
const LANGS = ['en', 'zh', 'ja', 'ko'] as const;
const SPLITS = ['dev', 'test'] as const;
const TOOL_FIELDS = ['server', 'package', 'version', 'name', 'description', 'inputSchema'];
const QUERY_FIELDS = ['id', 'server', 'lang', 'query', 'relevant', 'split'];

type Tool = { server: string; package: string; version: string; name: string; description: string; inputSchema: any };
type Query = { id: string; server: string; lang: string; query: string; relevant: string[]; split: string };

const readJsonl = (file: string) =>
  readFileSync(join(DATA_DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`${file}:${i + 1} is not JSON`);
      }
    });

const tools: Tool[] = readJsonl('tools.jsonl');
const queries: Query[] = readJsonl('queries.jsonl');
const readme = readFileSync(join(DATA_DIR, 'README.md'), 'utf8');
const toolKey = (server: string, name: string) => `${server}/${name}`;
const toolLine = new Map(tools.map((t, i) => [toolKey(t.server, t.name), i]));
const servers = [...new Set(tools.map((t) => t.server))];

/** Rows of the markdown table whose header row starts with `firstHeader`, as arrays of cells. */
function tableRows(firstHeader: string): string[][] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${firstHeader} |`));
  expect(start, `README table "${firstHeader}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split('|').map((c) => c.trim()));
  }
  return rows;
}

const countBy = <T>(items: T[], key: (item: T) => string) => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

describe('data/mcp tools.jsonl', () => {
  it('has exactly the documented fields, with the right types', () => {
    for (const t of tools) {
      expect(Object.keys(t), t.name).toEqual(TOOL_FIELDS);
      for (const f of ['server', 'package', 'version', 'name', 'description'] as const) {
        expect(typeof t[f], `${t.server}/${t.name}.${f}`).toBe('string');
      }
      expect(t.name.length).toBeGreaterThan(0);
      expect(t.inputSchema && typeof t.inputSchema, `${t.server}/${t.name}.inputSchema`).toBe('object');
    }
  });

  it('has unique tool names within each server, and one package and version per server', () => {
    expect(toolLine.size).toBe(tools.length);
    for (const server of servers) {
      const own = tools.filter((t) => t.server === server);
      expect(new Set(own.map((t) => `${t.package}@${t.version}`)).size, server).toBe(1);
    }
    // Each server's tools are contiguous (the recorder writes them server by server).
    const order = tools.map((t) => t.server).filter((s, i, all) => i === 0 || all[i - 1] !== s);
    expect(order).toEqual(servers);
  });

  it('records at least eight servers and 300 tools', () => {
    expect(servers.length).toBeGreaterThanOrEqual(8);
    expect(tools.length).toBeGreaterThanOrEqual(300);
  });
});

describe('data/mcp queries.jsonl', () => {
  it('has exactly the documented fields and values', () => {
    for (const q of queries) {
      expect(Object.keys(q), q.id).toEqual(QUERY_FIELDS);
      expect(q.id).toMatch(/^m\d{4}$/);
      expect(LANGS, q.id).toContain(q.lang);
      expect(SPLITS, q.id).toContain(q.split);
      expect(q.query.trim(), q.id).toBe(q.query);
      expect(q.query.length, q.id).toBeGreaterThan(0);
      expect(Array.isArray(q.relevant) && q.relevant.length > 0, q.id).toBe(true);
      expect(new Set(q.relevant).size, q.id).toBe(q.relevant.length);
    }
  });

  it('has unique ids and unique request texts', () => {
    expect(new Set(queries.map((q) => q.id)).size).toBe(queries.length);
    expect(new Set(queries.map((q) => q.query)).size).toBe(queries.length);
  });

  it('labels every request with tools that exist in its server', () => {
    const missing = queries.flatMap((q) =>
      q.relevant.filter((name) => !toolLine.has(toolKey(q.server, name))).map((name) => `${q.id}: ${q.server}/${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('follows the split rule: alternate per first relevant tool, starting by the tool line parity', () => {
    const seen = new Map<string, number>();
    const wrong: string[] = [];
    for (const q of queries) {
      const key = toolKey(q.server, q.relevant[0]);
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      const expected = (n + toolLine.get(key)!) % 2 === 0 ? 'dev' : 'test';
      if (q.split !== expected) wrong.push(`${q.id} is ${q.split}, expected ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('covers every server and every language in both splits', () => {
    for (const split of SPLITS) {
      const part = queries.filter((q) => q.split === split);
      expect(new Set(part.map((q) => q.server)), split).toEqual(new Set(servers));
      expect(new Set(part.map((q) => q.lang)), split).toEqual(new Set(LANGS));
    }
  });

  it('has the promised size and language mix', () => {
    expect(queries.length).toBeGreaterThanOrEqual(600);
    const perLang = countBy(queries, (q) => q.lang);
    for (const lang of ['zh', 'ja', 'ko']) expect(perLang[lang], lang).toBeGreaterThanOrEqual(40);
    // Sibling-rich servers get about two requests per tool.
    for (const server of ['github', 'notion', 'stripe', 'supabase', 'plane', 'hubspot']) {
      const toolCount = tools.filter((t) => t.server === server).length;
      const requestCount = queries.filter((q) => q.server === server).length;
      expect(requestCount / toolCount, server).toBeGreaterThanOrEqual(1.8);
    }
  });
});

describe('data/mcp README.md', () => {
  it('states the totals in its title', () => {
    const title = readme.split('\n')[0];
    expect(title).toContain(`${tools.length} tools from ${servers.length} MCP servers`);
    expect(title).toContain(`${queries.length} requests`);
  });

  it('has a server table that matches the files', () => {
    const rows = tableRows('server | package');
    const expected = servers.map((server) => {
      const own = tools.filter((t) => t.server === server);
      const asked = queries.filter((q) => q.server === server);
      return [
        server,
        `\`${own[0].package}\``,
        own[0].version,
        String(own.length),
        String(asked.length),
        String(asked.filter((q) => q.split === 'dev').length),
        String(asked.filter((q) => q.split === 'test').length),
      ];
    });
    const dev = queries.filter((q) => q.split === 'dev').length;
    expected.push(['all', '', '', String(tools.length), String(queries.length), String(dev), String(queries.length - dev)]);
    // Licence (column 4) is free text; compare every other column.
    expect(rows.map((r) => [r[0], r[1], r[2], ...r.slice(4)])).toEqual(expected);
  });

  it('has a language table that matches the files', () => {
    const rows = tableRows('lang | all');
    const expected = [...LANGS, 'all'].map((lang) => {
      const part = lang === 'all' ? queries : queries.filter((q) => q.lang === lang);
      return [lang, ...[part, part.filter((q) => q.split === 'dev'), part.filter((q) => q.split === 'test')].map((p) => String(p.length))];
    });
    expect(rows).toEqual(expected);
  });

  it('states how many tools are relevant to some request', () => {
    const used = new Set(queries.flatMap((q) => q.relevant.map((name) => toolKey(q.server, name))));
    expect(readme).toContain(`${used.size} of the ${tools.length} tools are relevant to at least one request`);
  });
});
