// What a request names by its shape: a file path, a URL, an email address, an owner/repo, a
// #channel. The request never says "file" or "repository", but the tool that takes such a
// thing does; in 'enhanced' and 'hybrid' mode the shape's word joins the query
// (crates/core/src/enhanced/shapes.rs). 'compatible' mode stays the host's ranking.
import { readFileSync } from 'node:fs';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { Native, Reference, firstHit, step, toolsOf } from '../support/tool-search';

const catalog = toolsOf([
  ['filesystem_read_text_file', 'Read the complete contents of a file from the file system as text'],
  ['filesystem_get_file_info', 'Retrieve detailed metadata about a file or directory: size, creation time, permissions'],
  ['browser_navigate', 'Navigate to a URL'],
  ['browser_click', 'Perform a click on a web page element'],
  ['github_get_file_contents', 'Get the contents of a file or directory from a GitHub repository'],
  ['github_add_issue_comment', 'Add a comment to an existing issue in a GitHub repository'],
  ['tracker_add_comment', 'Add a comment to an existing issue in a project'],
  ['slack_get_channel_history', 'Get recent messages from a channel'],
  ['queue_get_messages', 'Pull messages from a queue'],
  ['email_send', 'Send an email to a recipient'],
  ['notes_create', 'Create a note with a title and text'],
]);

const cases: Array<[string, string, string]> = [
  ['a file path', 'What is inside docs/guide.md?', 'filesystem_read_text_file'],
  ['a host and path', 'Go to example.com/pricing', 'browser_navigate'],
  ['an email address', 'Let ana@x.io know the build is green', 'email_send'],
  ['a #channel', 'Catch me up on the last 50 messages in #incidents', 'slack_get_channel_history'],
  // (the same action on another server's tool: the owner/repo says which)
  ['an owner/repo', 'Add a comment on #57 in acme/api saying it ships in 2.3', 'github_add_issue_comment'],
  ['an owner/repo in a Japanese request', 'acme/api の #57 に「2.3 で出ます」とコメントを追加して', 'github_add_issue_comment'],
];

describe('what a request names by its shape', () => {
  // (in 'hybrid' the words join the text the model embeds too: it has no vector for acme/web
  // either; a file path alone leaves it between reading the file and its metadata)
  for (const mode of ['enhanced', 'hybrid'] as const) {
    describe(`search.mode '${mode}'`, () => {
      const processor = new Native({ tools: catalog, search: { mode } });
      for (const [what, query, expected] of cases.filter(([what]) => mode === 'enhanced' || what !== 'a file path')) {
        it(`${what}: "${query}" finds ${expected} first`, async () => {
          expect(await firstHit(processor, query)).toBe(expected);
        });
      }
    });
  }

  // (over a real catalog the shape's word lifts the tool into the results)
  describe("search.mode 'hybrid', over the 440 tools of data/mcp", () => {
    const url = new URL('../../data/mcp/tools.jsonl', import.meta.url);
    const tools = Object.fromEntries(
      readFileSync(url, 'utf8')
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line))
        .map((t) => [`${t.server}_${t.name}`, createTool({ id: `${t.server}_${t.name}`, description: t.description, inputSchema: t.inputSchema, execute: async () => ({}) })]),
    );
    const processor = new Native({ tools, search: { mode: 'hybrid', topK: 5 } });
    for (const [what, query, expected] of [
      ['a #channel', 'Catch me up on #eng-alerts', 'slack_slack_get_channel_history'],
      ['a file path', 'Get me the size and modified time of logs/app.log', 'filesystem_get_file_info'],
    ]) {
      it(`${what}: "${query}" lists ${expected} in the top 5`, async () => {
        const found = await (await step(processor)).search(query);
        expect(found.results.map((r: any) => r.name)).toContain(expected);
      });
    }
  });

  it("'compatible' mode ranks these requests as the host does", async () => {
    const ours = await step(new Native({ tools: catalog }));
    const host = await step(new Reference({ tools: catalog }));
    for (const [, query] of cases) expect((await ours.search(query)).results.map((r: any) => r.name)).toEqual((await host.search(query)).results.map((r: any) => r.name));
  });
});
