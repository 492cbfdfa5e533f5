// Helpers for the SkillSearchProcessor host-matrix specs: skill folders on disk, workspaces,
// request contexts and processor steps built from one host's own modules (see ./hosts.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import type { Host } from './hosts';

export type SkillDef = { name: string; description: string; body: string; references?: Record<string, string> };

/** Writes `skills` as `<root>/<dir>/<name>/SKILL.md` (+ references/). */
export function writeSkills(root: string, dir: string, skills: SkillDef[]): void {
  for (const skill of skills) {
    const base = join(root, dir, skill.name);
    const put = (rel: string, text: string) => {
      mkdirSync(dirname(join(base, rel)), { recursive: true });
      writeFileSync(join(base, rel), text);
    };
    put('SKILL.md', `---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n---\n${skill.body}\n`);
    for (const [rel, text] of Object.entries(skill.references ?? {})) put(`references/${rel}`, text);
  }
}

export function tempRoot(prefix = 'skill-hosts-'): { root: string; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A real Workspace of `host` over `root` (LocalFilesystem), with static or dynamic skill paths. */
export function workspaceOf(
  host: Host,
  root: string,
  skills: string[] | ((ctx: { requestContext?: any }) => string[] | Promise<string[]>),
  { bm25 = true }: { bm25?: boolean } = {},
): any {
  const { Workspace, LocalFilesystem } = host.workspace;
  return new Workspace({ filesystem: new LocalFilesystem({ basePath: root }), skills, ...(bm25 ? { bm25: true } : {}) });
}

/** A RequestContext of `host` holding `values`. */
export function contextOf(host: Host, values: Record<string, unknown> = {}): any {
  const rc = new host.requestContext.RequestContext();
  for (const [key, value] of Object.entries(values)) rc.set(key, value);
  return rc;
}

/** One `processInputStep` with a fresh MessageList of `host`: the tools and the system messages. */
export async function stepOn(
  host: Host,
  processor: any,
  { requestContext, stepNumber = 0, tools }: { requestContext?: any; stepNumber?: number; tools?: Record<string, unknown> } = {},
): Promise<{ result: any; tools: Record<string, any>; system: string[] }> {
  const messageList = new host.agent.MessageList({ threadId: 't', resourceId: 'r' });
  const result = await processor.processInputStep({
    tools,
    messageList,
    requestContext: requestContext ?? contextOf(host),
    messages: [],
    stepNumber,
  });
  const system = messageList
    .getSystemMessages()
    .map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  return { result, tools: result.tools, system };
}

/** Executes a meta-tool the way the agent does (input validation included). */
export function exec(tool: any, input: unknown): Promise<any> {
  return tool.execute(input, {});
}

/** A promise that settles only when told to. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export { shiftClock } from './clock';

/** Longer than every host's skills staleness cooldown (2 s on 1.58/1.59, 30 s on 1.60+). */
export const PAST_STALENESS_COOLDOWN_MS = 60_000;

/** A host ConsoleLogger whose warn() calls are recorded (and not printed). */
export function recordingLogger(host: Host): { logger: any; warns: unknown[][] } {
  const { ConsoleLogger } = host.require('@mastra/core/logger');
  const logger = new ConsoleLogger({ level: 'silent' });
  const warns: unknown[][] = [];
  logger.warn = (...args: unknown[]) => {
    warns.push(args);
  };
  return { logger, warns };
}

/**
 * A LanguageModelV2 that reacts to the prompt rather than playing a shared script, so several
 * concurrent generate() calls on one agent each get their own sequence: with no tool result yet
 * it calls search_skills(query); after one, load_skill(<first search result's name>); after
 * two, it answers with the text. Every call is logged with its prompt.
 */
export function reactiveSkillModel(query: string, log: Array<{ prompt: any[] }>) {
  let n = 0;
  return {
    specificationVersion: 'v2' as const,
    provider: 'test',
    modelId: 'reactive',
    supportedUrls: {},
    async doGenerate(options: any) {
      const prompt: any[] = options.prompt;
      log.push({ prompt });
      const results = prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content);
      n++;
      let content: any[];
      if (results.length === 0) {
        content = [{ type: 'tool-call', toolCallId: `c${n}`, toolName: 'search_skills', input: JSON.stringify({ query }) }];
      } else if (results.length === 1) {
        const found = results[0].output?.value?.results?.[0]?.name ?? 'none';
        content = [{ type: 'tool-call', toolCallId: `c${n}`, toolName: 'load_skill', input: JSON.stringify({ skillName: found }) }];
      } else {
        content = [{ type: 'text', text: 'done' }];
      }
      return {
        content,
        warnings: [],
        finishReason: content[0].type === 'text' ? 'stop' : 'tool-calls',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        response: { id: `r${n}`, modelId: 'reactive', timestamp: new Date(0) },
      };
    },
    async doStream(): Promise<never> {
      throw new Error('use generate() in tests');
    },
  };
}
