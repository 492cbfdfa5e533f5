import type { Mastra } from '@mastra/core/mastra';
import type { ProcessInputStepArgs, Processor } from '@mastra/core/processors';
import type { Tool, ToolExecutionContext } from '@mastra/core/tools';
import type { Workspace } from '@mastra/core/workspace';
import type { LoadedStateStore, StateStoreStats } from './stores/index';
import type { ToolSearchLearnOptions } from './tool-search';

/** Options of {@link SkillSearchProcessor}; the same as `@mastra/core`'s. */
export interface SkillSearchProcessorOptions {
  /** Workspace whose `skills` are searched and loaded. */
  workspace: Workspace;
  search?: {
    /**
     * Maximum number of matching documents (SKILL.md or reference file) before per-skill
     * de-duplication; in `'enhanced'` mode, maximum number of skills. @default 5
     */
    topK?: number;
    /** Minimum relevance score (`score >= minScore`), on the scale of the selected `mode`. @default 0 */
    minScore?: number;
    /**
     * `'compatible'` searches exactly like `@mastra/core` 1.59.0 (workspace BM25 or substring
     * scan, plus skill names and descriptions).
     *
     * `'enhanced'` ranks skills with a multilingual index instead, whatever engine the workspace
     * has: one document per skill with the fields name, description, SKILL.md body and reference
     * files, scored by field-weighted BM25 (BM25F; names weigh most, references least). Text is
     * NFKC-normalised and case-folded, Traditional Chinese folded to Simplified, Chinese/Japanese/
     * Korean split into character bigrams, identifiers (`camelCase`, `kebab-case`) split, English
     * words stemmed and stopwords dropped; query words that match nothing are matched with typos.
     * Scores are on a different scale than compatible BM25, so set `minScore` for this mode.
     * `load_skill`'s "Did you mean" ranks names by edit distance and shared words as well as
     * substrings. Result shape, messages and rounding are unchanged.
     *
     * `'hybrid'` is `'enhanced'` fused with a static embedding model's ranking (paraphrases and
     * cross-language requests find skills that share no word with them). It needs the model:
     * the package `mastra-native-processors-model-multilingual`, or `model`. Scores are the fused
     * score in (0, 1] (1 = first in both rankings).
     *
     * Any other value throws a `TypeError`.
     * @default 'compatible'
     */
    mode?: 'compatible' | 'enhanced' | 'hybrid';
    /**
     * With `mode: 'hybrid'`: a directory holding `model.bin`, or the file. Default: the installed
     * `mastra-native-processors-model-multilingual` package. Set without `mode: 'hybrid'`, it throws.
     */
    model?: string;
    /**
     * Ours, `mode: 'hybrid'` only: an AI SDK `EmbeddingModel` that ranks the semantic side in
     * place of the shipped model's vectors (each skill's name, description and the start of its
     * body embedded once; each query once), falling back to them on any failure, as
     * ToolSearchProcessor's `search.embedder`.
     */
    embedder?: {
      doEmbed(options: { values: string[]; abortSignal?: AbortSignal }): PromiseLike<{ embeddings: number[][] }>;
      maxEmbeddingsPerCall?: number | PromiseLike<number | undefined>;
      supportsParallelCalls?: boolean | PromiseLike<boolean>;
    };
    /** With `embedder`: how long a search waits for its query's vector (ms, 1–60000). @default 400 */
    embedderTimeoutMs?: number;
    /**
     * With `embedder`: a cache shared between processes, such as `redisEmbeddingCache(client)`,
     * so a catalog is embedded once between them (read before embedding, written after; queries
     * are not shared). A failing or slow cache (2 s bound) only means embedding without it, with
     * one warning per outage.
     */
    embeddingCache?: import('./stores/embedding-cache').EmbeddingCache;
  };
  /** Inactivity time-to-live of per-thread state in ms; 0 disables cleanup. @default 3600000 */
  ttl?: number;
  /**
   * Where each thread's loaded skills live (ours; `@mastra/core` keeps them in memory only).
   * `'in-memory'`: this process, as the host. A store such as `redisStore(client)` shares them
   * across processes: names only, re-checked every step with the request's own
   * `skills.get(name)` (a name it cannot get is ignored) and shown with the instructions
   * get() returns now. Every call is bounded (the store's `timeoutMs`, default 500 ms); a
   * failed read is "nothing loaded" for that step with one warning per outage, a failed
   * write makes `load_skill` answer `success: false`. `ttl` is the store's idle TTL unless
   * the store sets its own. @default 'in-memory'
   */
  storage?: 'in-memory' | LoadedStateStore;
  /**
   * When true, the processor awaits the skills staleness check and refresh
   * (`workspace.skills.maybeRefresh()`) before the first step, so search results reflect disk
   * (subject to the workspace's staleness cooldown). When false, the turn proceeds on the
   * cached catalog and the refresh runs in the background, so mid-session skill changes appear
   * one turn later (searches after the refresh settles see them).
   *
   * A failed refresh is logged as `SkillSearchProcessor: skills refresh failed` (with
   * `{ error }`) through the Mastra logger (registered via `__registerMastra`, e.g. when the
   * agent is added to `new Mastra({ logger })`), else `console.warn`, and never fails the step
   * on `@mastra/core` 1.60+. On 1.58/1.59 hosts a failed blocking refresh fails the step, as
   * theirs does; a background one is logged.
   *
   * Any value other than a boolean (or `undefined`/`null`) throws a `TypeError`.
   * @default false on @mastra/core 1.60+; true on 1.58/1.59 (which always await the refresh)
   */
  blockingRefresh?: boolean;
  /**
   * Ours, opt-in, every search mode and storage: at the first step of each user message, the
   * skill its text finds with a confidence (an estimated probability that it is the skill the
   * request needs) of at least `minConfidence` is loaded as `load_skill` would, so its
   * instructions are in that very step's context. Stricter defaults than ToolSearchProcessor's,
   * as skills are long.
   */
  preload?:
    | boolean
    | {
        /** @default 1 */
        maxSkills?: number;
        /** From 0 to 1. @default 0.6 */
        minConfidence?: number;
        /** Called with what was preloaded (never for an empty preload). */
        onPreload?: (event: { threadId: string; query: string; skills: Array<{ name: string; confidence: number; learned?: true }> }) => void;
      };
  /**
   * Ours (docs/learning.md, "Skills"): learning from use. A `load_skill` call of the model's that
   * loaded its skill teaches that the request needs it; a similar later request gets it preloaded
   * and, in 'enhanced'/'hybrid', first in search_skills' results. The options are
   * ToolSearchProcessor's, `seed` mapping skill names to requests. Off by default.
   */
  learn?: boolean | ToolSearchLearnOptions;
}

/** Index statistics (not in `@mastra/core`). */
export interface SkillIndexStats {
  /** Skills of the most recently used scope's index. */
  skillCount: number;
  /** SKILL.md bodies plus readable reference files (enhanced mode folds each skill's into one indexed document). */
  documentCount: number;
  /** Distinct terms of the compatible index; 0 in enhanced mode. */
  termCount: number;
  /**
   * Skills views (request scopes from `workspace.skills.getScoped()`, or the workspace's own
   * skills) holding a native index; at most 32, least recently used dropped first, and views
   * idle longer than `ttl` dropped by the cleanup sweep.
   */
  scopeCount: number;
  /** Times the native index was built (only when the skill set or content changed). */
  builds: number;
  /**
   * Times the index was checked against the workspace: the first search after each step-0
   * refresh, and the next search after a refresh/addSkill/removeSkill on Mastra's skills object.
   */
  checks: number;
  lastBuildMs: number;
  lastCheckMs: number;
}

/** What `search_skills` returns. */
export type SearchSkillsOutput = { results: Array<{ name: string; description: string; score: number }>; message: string };

/** What `load_skill` returns. */
export type LoadSkillOutput = { success: boolean; message: string; skillName?: string };

/** The `search_skills` meta-tool (a Mastra `Tool`). */
export type SearchSkillsTool = Tool<{ query: string }, SearchSkillsOutput, unknown, unknown, ToolExecutionContext<unknown, unknown, unknown>, 'search_skills', unknown>;

/** The `load_skill` meta-tool (a Mastra `Tool`). */
export type LoadSkillTool = Tool<{ skillName: string }, LoadSkillOutput, unknown, unknown, ToolExecutionContext<unknown, unknown, unknown>, 'load_skill', unknown>;

/** The tools a step offers: the request's tools plus the two meta-tools. */
export type SkillSearchStepTools = Record<string, unknown> & { search_skills: SearchSkillsTool; load_skill: LoadSkillTool };

/**
 * On-demand skill discovery: `search_skills` and `load_skill` meta-tools, loaded skills
 * injected as system messages per thread. Drop-in replacement for `SkillSearchProcessor`
 * from `@mastra/core/processors`, following the installed host (1.58–1.71), searching a native
 * index (one per request scope) that also covers skill names and descriptions. Request-scoped
 * skills (`workspace.skills.getScoped({ requestContext })`) are used whenever the workspace
 * offers them; no search, load or loaded skill crosses scopes.
 */
export declare class SkillSearchProcessor implements Processor<'skill-search'> {
  readonly id: 'skill-search';
  readonly name: 'Skill Search Processor';
  readonly description: 'Enables on-demand skill discovery and loading via search';
  readonly providesSkillDiscovery: 'on-demand';
  private readonly workspace;
  private readonly searchConfig;
  private readonly ttl;
  /** Own field on @mastra/core 1.60+ hosts only (as theirs). */
  private readonly blockingRefresh?;
  /** Mastra logger, attached via __registerMastra (own field on 1.60+ hosts only, as theirs). */
  private logger?;
  private cleanupIntervalId?;
  private threadLoadedSkills;
  constructor(options: SkillSearchProcessorOptions);
  /** Called by Mastra when the processor is registered; its logger receives refresh failures. */
  __registerMastra(mastra: Mastra<any, any, any, any, any, any, any, any, any, any>): void;
  /** Stops the cleanup timer and releases all state and the index; calling it twice is harmless. */
  dispose(): void;
  /**
   * Clears one thread's loaded skills (`'default'` when omitted). With a `storage` store: a
   * promise of the outcome, which never rejects.
   */
  clearState(threadId?: string): void | Promise<{ ok: boolean; error?: unknown }>;
  /** Clears every thread (with a store: its whole namespace, as a promise of the outcome). */
  clearAllState(): void | Promise<{ ok: boolean; error?: unknown }>;
  /**
   * Ours: thread count and oldest access of the state wherever it lives (a store's `stats()`,
   * null when it does not answer; else the same as getStateStats()). getStateStats() and
   * cleanupNow() report zeros with a store: its TTL is the store's.
   */
  getStoreStats(): Promise<StateStoreStats | null>;
  /** Ours (learn): forgets what one resource taught (in every process with a shared store); resolves how many examples were removed (0 when learn is off). */
  forgetLearnedResource(resourceId: string): Promise<number>;
  /** Ours (learn): forgets every learned example (`learn.seed` stays). */
  forgetAllLearned(): Promise<void>;
  /** Ours (learn): what learning holds, or null when learn is off. */
  getLearningStats(): { scope: 'resource' | 'global'; examples: number; seeds: number; resources: number; bytes: number; store: 'in-memory' | 'custom' | 'redis'; lastOutage: string | null } | null;
  getStateStats(): { threadCount: number; oldestAccessTime: number | null };
  /** Removes threads idle longer than `ttl`; returns how many. */
  cleanupNow(): number;
  getIndexStats(): SkillIndexStats;
  /**
   * The request's tools plus `search_skills` and `load_skill`; with a workspace that has no
   * skills the request's tools are passed through unchanged (so `undefined` stays `undefined`).
   */
  processInputStep(args: ProcessInputStepArgs): Promise<{ tools: SkillSearchStepTools | undefined }>;
}
