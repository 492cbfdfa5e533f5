// Shared fixtures for the SkillSearchProcessor specs on the root @mastra/core (1.59): a generated
// skills workspace on a real LocalFilesystem in a temp folder, step helpers, and the scripted model.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent, MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { LocalFilesystem, Workspace } from '@mastra/core/workspace';

export interface FixtureSkill {
  name: string;
  description: string;
  body: string;
  references?: Record<string, string>;
  scripts?: Record<string, string>;
  assets?: Record<string, string>;
}

const TOPICS: Array<[string, string, string]> = [
  // [name, description, body words]
  ['api-design', 'Guidelines for designing REST APIs and HTTP endpoints', 'Use REST conventions for every api endpoint. Version your api with v1 prefixes and pagination cursors.'],
  ['deployment', 'How to deploy applications to production', 'Use CI/CD pipelines. Roll out with a blue-green strategy and canary releases.'],
  ['testing-strategy', 'Best practices for writing tests: unit tests, integration tests, end-to-end tests, property-based tests, snapshot tests, mutation testing and coverage goals for teams.', 'Write unit tests first. Use integration tests for api boundaries and fixtures for databases.'],
  ['database-migrations', 'Evolve relational schemas safely', 'Write reversible migrations. Backfill columns in batches and avoid table locks during peak hours.'],
  ['code-review', 'Reviewing pull requests with care', 'Check naming, error handling and test coverage. Leave actionable comments and approve small diffs quickly.'],
  ['incident-response', 'Handling production outages calmly', 'Declare the incident, page the on-call engineer, open a status page and write a postmortem afterwards.'],
  ['logging', 'Structured logs that help debugging', 'Emit json lines with correlation ids. Never log secrets or tokens. Sample noisy debug output.'],
  ['metrics-dashboards', 'Observability dashboards and alerts', 'Track latency percentiles, error rates and saturation. Alert on symptoms, not causes.'],
  ['security-review', 'Threat modelling for new features', 'Enumerate trust boundaries, validate input, encrypt data at rest and rotate credentials quarterly.'],
  ['accessibility', 'Inclusive interfaces for everyone', 'Provide alt text, keyboard navigation, focus outlines and sufficient colour contrast ratios.'],
  ['performance-tuning', 'Making slow services fast', 'Profile before optimising. Cache hot paths, batch network calls and measure flamegraphs.'],
  ['documentation', 'Writing docs people read', 'Start with a quickstart, then concepts, then reference pages. Keep examples runnable.'],
  ['git-workflow', 'Branching and commit hygiene', 'Rebase feature branches, squash fixups and write imperative commit subjects under fifty characters.'],
  ['release-notes', 'Communicating product changes', 'Group entries by audience, highlight breaking changes and link migration guides.'],
  ['onboarding', 'Helping new teammates ramp up', 'Pair on the first ticket, share the architecture map and schedule weekly checkins.'],
  ['data-privacy', 'GDPR and personal data handling', 'Minimise collection, honour deletion requests and document retention periods.'],
  ['caching', 'Speed up reads with caches', 'Choose ttl values carefully, invalidate on writes and guard against thundering herds.'],
  ['feature-flags', 'Gradual rollouts behind toggles', 'Name toggles clearly, default them off, and delete stale toggles after full rollout.'],
  ['error-handling', 'Failing gracefully', 'Wrap low level errors with context, retry idempotent operations with exponential backoff.'],
  ['frontend-state', 'Managing UI state', 'Keep server state in a query cache and local state close to components. Avoid global stores.'],
  ['mobile-release', 'Shipping iOS and Android apps', 'Use staged rollouts, monitor crash reports and keep store screenshots current.'],
  ['kubernetes-ops', 'Running workloads on clusters', 'Set resource requests and limits, use readiness probes and spread pods across zones.'],
  ['cost-control', 'Cloud spend management', 'Tag resources by team, rightsize instances and schedule nonproduction environments to sleep.'],
  ['interviewing', 'Hiring engineers fairly', 'Use structured rubrics, calibrate interviewers and give candidates timely feedback.'],
  ['sql-style', 'Readable queries', 'Uppercase keywords, one clause per line, explicit joins and meaningful aliases.'],
  ['python-style', 'Idiomatic Python code', 'Follow pep8, prefer comprehensions, type hint public functions and use dataclasses.'],
  ['rust-style', 'Idiomatic Rust code', 'Prefer iterators, avoid unwrap in libraries, use clippy and document unsafe blocks.'],
  ['typescript-style', 'Idiomatic TypeScript code', 'Enable strict mode, prefer unions over enums and avoid any in exported signatures.'],
  ['customer-support', 'Answering customer tickets', 'Acknowledge quickly, reproduce the issue, and follow up until resolved with empathy.'],
  ['pricing-pages', 'Presenting plans clearly', 'Compare tiers in a table, highlight the recommended plan and explain overage fees.'],
  ['localization', 'Translating the product', 'Externalise strings, support plural rules and test right-to-left layouts.'],
  ['analytics-events', 'Tracking product usage', 'Name events verb first, version schemas and never send personal data to trackers.'],
];

/** 32 skills; every fourth has references/, every third scripts/, every fifth assets/. */
export function fixtureSkills(): FixtureSkill[] {
  return TOPICS.map(([name, description, words], i) => {
    const skill: FixtureSkill = {
      name,
      description,
      body: `# Guide ${i + 1}\n\n${words}\n\nFollow these steps carefully.`,
    };
    if (i % 4 === 0) {
      skill.references = {
        'checklist.md': `Checklist for ${name}: ${words.split(' ').slice(0, 6).join(' ')} and extra quokka notes.`,
        'nested/deep.md': `Deep reference ${i}: appendix material with wombat examples.`,
      };
    }
    if (i % 3 === 0) skill.scripts = { 'run.sh': `#!/bin/sh\necho ${name}\n` };
    if (i % 5 === 0) skill.assets = { 'logo.txt': `logo of ${name}` };
    return skill;
  });
}

export function skillFile(skill: Pick<FixtureSkill, 'name' | 'description' | 'body'>): string {
  return `---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n---\n${skill.body}\n`;
}

export function writeSkill(root: string, skill: FixtureSkill, dir = 'skills'): void {
  const base = join(root, dir, skill.name);
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(base, rel)), { recursive: true });
    writeFileSync(join(base, rel), text);
  };
  put('SKILL.md', skillFile(skill));
  for (const [sub, files] of [
    ['references', skill.references],
    ['scripts', skill.scripts],
    ['assets', skill.assets],
  ] as const) {
    for (const [rel, text] of Object.entries(files ?? {})) put(`${sub}/${rel}`, text);
  }
}

export interface TempWorkspace {
  root: string;
  make(options?: { bm25?: boolean }): Workspace;
  cleanup(): void;
}

/** A temp folder holding `skills`; `make()` gives a fresh Workspace over it each time. */
export function tempSkillsWorkspace(skills: FixtureSkill[] = fixtureSkills()): TempWorkspace {
  const root = mkdtempSync(join(tmpdir(), 'skill-search-'));
  mkdirSync(join(root, 'skills'), { recursive: true });
  for (const s of skills) writeSkill(root, s);
  return {
    root,
    make: ({ bm25 = true } = {}) =>
      new Workspace({ filesystem: new LocalFilesystem({ basePath: root }), skills: ['skills'], ...(bm25 ? { bm25: true } : {}) }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function contextFor(threadId?: string): RequestContext<any> {
  const rc = new RequestContext<any>();
  if (threadId !== undefined) rc.set('mastra__threadId', threadId);
  return rc;
}

/** Runs one `processInputStep` with a fresh MessageList; returns the result and its system messages. */
export async function step(
  processor: { processInputStep(args: any): Promise<any> },
  options: { tools?: Record<string, unknown>; threadId?: string; requestContext?: RequestContext; stepNumber?: number; messageList?: MessageList } = {},
) {
  const messageList = options.messageList ?? new MessageList({ threadId: options.threadId ?? 't', resourceId: 'r' });
  const requestContext = options.requestContext ?? contextFor(options.threadId);
  const result = await processor.processInputStep({
    tools: options.tools,
    messageList,
    requestContext,
    messages: [],
    stepNumber: options.stepNumber ?? 0,
  });
  const system = messageList.getSystemMessages().map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  return { result, tools: result.tools as Record<string, any>, system, messageList };
}

/** Executes a meta-tool the way the agent does (validation included). */
export async function call(tool: any, input: unknown): Promise<any> {
  return tool.execute(input, {});
}

export { scriptedModel } from './scripted-model';
import { scriptedModel } from './scripted-model';

/**
 * One user turn of a real Agent over `workspace` with `processor` as its input processor, the
 * model scripted by `script`, as `resource` (a thread of its own); resolves the model calls' log.
 */
export async function agentTurn(processor: any, workspace: Workspace, text: string, script: any[], resource = 'alice'): Promise<any[]> {
  const log: any[] = [];
  const agent = new Agent({ id: 'skills-turn', name: 'skills-turn', instructions: 'Help.', model: scriptedModel(script, log) as any, workspace, inputProcessors: [processor] });
  const requestContext = contextFor(`t-${Math.random()}`);
  requestContext.set('mastra__resourceId', resource);
  await agent.generate(text, { maxSteps: 5, requestContext: requestContext as any });
  return log;
}

/** The names of the skills a prompt's system messages carry (`[Skill: name]`). */
export const skillsIn = (prompt: any[]): string[] =>
  prompt.filter((m) => m.role === 'system').map((m) => /^\[Skill: ([^\]]+)\]/.exec(typeof m.content === 'string' ? m.content : '')?.[1]).filter((n): n is string => Boolean(n));

export { shiftClock } from './clock';

/** Longer than SkillSearchProcessor's full re-check interval (5 s in js/skill-search.js). */
export const PAST_FULL_CHECK_MS = 6_000;
