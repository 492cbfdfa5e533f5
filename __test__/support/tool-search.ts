// Shared fixtures for ToolSearchProcessor tests: tools, step args, and a runner that drives
// the reference and our processor through the same calls.
import { describe, expect, it } from 'vitest';
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { ToolSearchProcessor as Native } from '../../index.js';

export { Reference, Native };
export type ProcessorClass = typeof Reference | typeof Native;
export const implementations: Array<[string, any]> = [
  ['reference', Reference],
  ['native', Native],
];

export function tool(id: string, description = `${id} tool`, extra: Record<string, unknown> = {}) {
  return createTool({ id, description, execute: async () => ({ ran: id }), ...extra } as any);
}

export function toolsOf(defs: Array<[string, string]>) {
  return Object.fromEntries(defs.map(([id, d]) => [id, tool(id, d)]));
}

export const SIX_TOOLS: Array<[string, string]> = [
  ['github_create_issue', 'Create a new issue on GitHub'],
  ['github_create_pr', 'Create a pull request on GitHub'],
  ['linear_create_issue', 'Create a new issue in Linear'],
  ['weather_forecast', 'Get weather forecast for a location'],
  ['send_email', 'Send an email message'],
  ['calendar_schedule', 'Schedule a calendar event'],
];

export function requestContext(threadId?: unknown, extra: Record<string, unknown> = {}) {
  const rc = new RequestContext<any>();
  if (threadId !== undefined) rc.set('mastra__threadId', threadId as any);
  for (const [k, v] of Object.entries(extra)) rc.set(k, v as any);
  return rc;
}

export function stepArgs(opts: { threadId?: unknown; tools?: Record<string, unknown>; rc?: RequestContext; messages?: unknown[] } = {}) {
  const rc = opts.rc ?? requestContext(opts.threadId);
  return {
    tools: opts.tools ?? {},
    messageList: new MessageList({ threadId: 'thread', resourceId: 'resource' }),
    requestContext: rc,
    messages: opts.messages ?? [],
    stepNumber: 0,
  } as any;
}

/** A processor step; returns the tools record plus helpers to call the meta-tools. */
export async function step(p: any, opts: Parameters<typeof stepArgs>[0] = {}) {
  const args = stepArgs(opts);
  const result = await p.processInputStep(args);
  return {
    result,
    args,
    keys: Object.keys(result.tools),
    search: (query: any) => result.tools.search_tools.execute({ query }, {}),
    load: (input: any) => result.tools.load_tool.execute(input, {}),
  };
}

/** The name of the first hit `search_tools` gives `query` at a fresh step of `p`. */
export async function firstHit(p: any, query: string): Promise<string | undefined> {
  return (await (await step(p)).search(query)).results[0]?.name;
}

/**
 * One test per case `[what, query, expected]`, in 'enhanced' and in 'hybrid' mode over `tools`:
 * `query`'s first hit is `expected`.
 */
export function itFindsFirstInEnhancedAndHybrid(tools: Record<string, any>, cases: Array<[string, string, string]>) {
  for (const mode of ['enhanced', 'hybrid'] as const) {
    describe(`search.mode '${mode}'`, () => {
      const processor = new Native({ tools, search: { mode } });
      for (const [what, query, expected] of cases) {
        it(`${what}: "${query}" finds ${expected} first`, async () => {
          expect(await firstHit(processor, query)).toBe(expected);
        });
      }
    });
  }
}

/** JSON-normal form: drops undefined-valued keys the way a model would see the result. */
export function plain(value: unknown) {
  return JSON.parse(JSON.stringify(value));
}

/** A message carrying a completed meta-tool result, as Mastra stores it (format 2). */
export function toolResultMessage(toolName: string, result: unknown, state = 'result') {
  return {
    id: `m-${Math.random()}`,
    role: 'assistant',
    createdAt: new Date(0),
    content: {
      format: 2,
      parts: [{ type: 'tool-invocation', toolInvocation: { state, toolCallId: `c-${Math.random()}`, toolName, args: {}, result } }],
    },
  };
}
