// Real MCP servers describe their tools in English; their users ask in their own language. In
// 'enhanced' and 'hybrid' mode a Chinese, Japanese or Korean request that names the things it is
// about in its own words (ファイル, 退款, 브랜치) finds the English tool, the asked action picking
// among siblings; the host's BM25 has no word in common to go on.
import { describe, expect, it } from 'vitest';
import { Native, Reference, firstHit, itFindsFirstInEnhancedAndHybrid, step, toolsOf } from '../support/tool-search';

const catalog = toolsOf([
  ['filesystem_read_file', 'Read the complete contents of a file from the file system.'],
  ['filesystem_write_file', 'Create a new file or completely overwrite an existing file with new content.'],
  ['filesystem_list_directory', 'Get a detailed listing of all files and directories in a specified path.'],
  ['filesystem_create_directory', 'Create a new directory or ensure a directory exists.'],
  ['filesystem_move_file', 'Move or rename files and directories.'],
  ['stripe_create_customer', 'Create a customer in Stripe.'],
  ['stripe_list_customers', 'Fetch a list of customers from Stripe.'],
  ['stripe_create_refund', 'Refund a payment intent in Stripe.'],
  ['stripe_list_invoices', 'Fetch a list of invoices from Stripe.'],
  ['browser_take_screenshot', 'Take a screenshot of the current page.'],
  ['browser_click', 'Perform a click on a web page element.'],
  ['browser_navigate', 'Navigate to a URL.'],
  ['github_create_branch', 'Create a new branch in a GitHub repository.'],
  ['github_list_commits', 'Get list of commits of a branch in a GitHub repository.'],
  ['slack_post_message', 'Post a new message to a Slack channel.'],
  ['slack_list_channels', 'List public channels in the workspace.'],
]);

const cases: Array<[string, string, string]> = [
  ['zh, read a file', '帮我读一下 notes.txt 这个文件', 'filesystem_read_file'],
  ['zh, create a folder', '新建一个 backups 文件夹', 'filesystem_create_directory'],
  ['zh, refund', '把这笔付款退款给客户', 'stripe_create_refund'],
  ['zh, list the customers', '列出所有客户', 'stripe_list_customers'],
  ['zh-Hant, a screenshot', '幫我把目前的頁面截圖', 'browser_take_screenshot'],
  ['ja, list a directory', 'src ディレクトリの中身を一覧で見せて', 'filesystem_list_directory'],
  ['ja, write a file', 'report.md というファイルに結果を書き込んで', 'filesystem_write_file'],
  ['ja, create a branch', 'リポジトリに新しいブランチを作って', 'github_create_branch'],
  ['ja, the invoices', '今月の請求書を一覧で見せて', 'stripe_list_invoices'],
  ['ja, a screenshot', 'ブラウザで今のページのスクリーンショットを撮って', 'browser_take_screenshot'],
  ['ko, send a message', '채널에 메시지 보내 줘', 'slack_post_message'],
  ['ko, list the channels', '채널 목록 보여 줘', 'slack_list_channels'],
  ['ko, create a customer', '새 고객 만들어 줘', 'stripe_create_customer'],
  ['ko, read a file', 'notes.txt 파일 읽어 줘', 'filesystem_read_file'],
  ['ko, click a button', '저장 버튼 클릭해 줘', 'browser_click'],
];

describe('CJK requests for English-described MCP tools', () => {
  itFindsFirstInEnhancedAndHybrid(catalog, cases);

  it('the host finds few of them (the requests share no word with their tools)', async () => {
    const host = new Reference({ tools: catalog });
    let right = 0;
    for (const [, query, expected] of cases) if ((await firstHit(host, query)) === expected) right += 1;
    expect(right).toBeLessThan(cases.length / 3);
  });

  it("search.mode 'compatible' ranks as the host's processor does", async () => {
    const ours = await step(new Native({ tools: catalog }));
    const host = await step(new Reference({ tools: catalog }));
    for (const [, query] of cases) {
      expect((await ours.search(query)).results, query).toEqual((await host.search(query)).results);
    }
  });
});
