'use strict';
// The one place that knows which @mastra/core is installed and what its processors do.
//
// Processors ask named capability questions (`host.capabilities.toolCallFilterStage`, ...)
// instead of comparing versions. The version is read once, at load, from the @mastra/core
// that this package resolves — the same copy whose `createTool` our meta-tools use.

/**
 * When the installed version cannot be read (e.g. a bundler inlined @mastra/core), assume the
 * newest behaviour: that is what most users run, and on it no processor rewrites stored history.
 */
const ASSUMED_WHEN_UNKNOWN = '999.0.0';

/**
 * Capabilities by the first host version that has them, oldest first. A host gets every
 * row at or below its version; later rows override earlier ones.
 */
const CAPABILITY_TABLE = [
  {
    since: '1.58.0',
    // ToolCallFilter's stage: 'messages' = processInput/processInputStep rewrite the
    // MessageList (what gets stored loses the filtered tool calls); 'prompt' (1.60+) = only
    // processLLMRequest, trimming the prompt sent to the model. On 'messages' hosts our
    // `stage: 'prompt'` option replays the host's own rules on the prompt.
    toolCallFilterStage: 'messages',
    // preserveModelOutput at the prompt stage: '1.59' and '1.68' = only a removed result with an
    // own non-null `providerOptions.mastra.modelOutput` (a toModelOutput result) leaves a
    // `<tool> result:` text; '1.60' (1.60–1.67) = every removed result whose `output` renders.
    toolCallFilterPreserveRule: '1.59',
    // What `filterAfterToolSteps` counts: 'run' = one group per model call of this request with
    // the tool calls first seen there (history never survives; 1.58/1.59); 'prompt' = the last N
    // assistant messages with tool calls in the prompt, history included (1.60+).
    toolCallFilterStepWindow: 'run',
    // Where a `<tool> result:` text goes at the prompt stage: 'converted' = where the host's
    // MessageList conversion puts the text part 1.59's filter writes in place of the call (a
    // text after a kept call of the same step starts a new assistant message after that step's
    // tool results); 'in-place' (1.60+) = where the call was, in the same message.
    toolCallFilterTextPlacement: 'converted',
    // A tool key equal to another tool's id is accepted and resolved key-first (id-first
    // with a filter). Every released host 1.58–1.71 does this (none rejects; only unreleased
    // upstream code does), so no later row changes it.
    toolKeyIdCollision: 'key-first',
    // `injectCatalog` is not a host option (we still offer it, see README).
    injectCatalog: false,
    // ToolSearchProcessor thread id without `mastra__threadId`: 'lenient' = our difference 2
    // (the memory thread's id when present, malformed memory contexts ignored); 'parsed' =
    // the host's parseMemoryRequestContext (throws on a malformed `MastraMemory` entry).
    toolSearchMemoryThread: 'lenient',
    // The host's context store counts a single-form load_tool result (`success` + `toolName`).
    // Ours always does (difference 4 on older hosts); this row documents the host for tests.
    toolSearchContextSingleLoad: false,
    // SkillSearchProcessor's step-0 `skills.maybeRefresh()`: awaited, and a rejection fails
    // the step ('blocking-throws'); 1.60+ ('background-logged'): in the background unless
    // `blockingRefresh: true`, and a rejection is logged as 'SkillSearchProcessor: skills
    // refresh failed' through the logger given by `__registerMastra` (else console.warn)
    // and never fails the step.
    skillRefresh: 'blocking-throws',
    // Whether the host's processor uses `workspace.skills.getScoped({ requestContext })`
    // (1.60+; the 1.58/1.59 WorkspaceSkills has no getScoped). Ours uses it on every host
    // whenever the workspace offers it (tenant isolation); tests read this host fact.
    scopedSkills: false,
    // Whether a Workspace with a filesystem resolver gives each request the skills of its
    // own filesystem (`ResolvedSourceWorkspaceSkills`, 1.68+); earlier hosts read such a
    // workspace's skills from process.cwd() for every request.
    scopedSkillSources: false,
    // SkillSearchProcessor thread id without `mastra__threadId`: 'lenient' = our difference 6
    // (the memory thread's id, malformed memory contexts ignored); 'parsed' (1.60+) = the
    // host's parseMemoryRequestContext (throws on a malformed `MastraMemory` entry).
    skillSearchMemoryThread: 'lenient',
  },
  {
    since: '1.60.0',
    toolCallFilterStage: 'prompt',
    toolCallFilterPreserveRule: '1.60',
    toolCallFilterStepWindow: 'prompt',
    toolCallFilterTextPlacement: 'in-place',
    toolSearchMemoryThread: 'parsed',
    toolSearchContextSingleLoad: true,
    skillRefresh: 'background-logged',
    scopedSkills: true,
    skillSearchMemoryThread: 'parsed',
  },
  {
    // tool-search.ts gained `injectCatalog` in 1.67.0 (unchanged through 1.71.0).
    since: '1.67.0',
    injectCatalog: true,
  },
  {
    since: '1.68.0',
    toolCallFilterPreserveRule: '1.68',
    scopedSkillSources: true,
  },
];

/** [major, minor, patch] of a semver string; prereleases count as their release. */
function parseVersion(version) {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(version));
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** The capability answers for a host version string. */
function capabilitiesFor(version) {
  const parsed = parseVersion(version) ?? parseVersion(ASSUMED_WHEN_UNKNOWN);
  const caps = {};
  for (const row of CAPABILITY_TABLE) {
    if (compareVersions(parsed, parseVersion(row.since)) >= 0) {
      const { since, ...rest } = row;
      Object.assign(caps, rest);
    }
  }
  return Object.freeze(caps);
}

/** The installed @mastra/core version, or undefined when it cannot be read. */
function installedHostVersion() {
  try {
    return require('@mastra/core/package.json').version;
  } catch {
    return undefined;
  }
}

const version = installedHostVersion();

/** What the installed host is and does. */
const host = Object.freeze({
  version,
  capabilities: capabilitiesFor(version),
});

module.exports = { host, capabilitiesFor, parseVersion, CAPABILITY_TABLE };
