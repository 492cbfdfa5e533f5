import type { ProcessInputStepArgs, Processor } from '@mastra/core/processors';
import type { RequestContext } from '@mastra/core/request-context';
import type { Tool, ToolExecutionContext } from '@mastra/core/tools';
import type { Mastra } from '@mastra/core/mastra';
import type { LoadedStateStore, StateStoreStats } from './stores/index';

/** The phase a {@link ToolSearchProcessorOptions.filter} call is made for. */
export type ToolSearchFilterPhase = 'search' | 'load' | 'active';

/** What the filter hook receives. */
export type ToolSearchFilterArgs = {
  /** The tool's id (`tool.id`). */
  toolName: string;
  tool: Tool<any, any>;
  requestContext?: RequestContext;
  phase: ToolSearchFilterPhase;
};

/** Options of {@link ToolSearchProcessor}; those of `@mastra/core` (1.71), plus `search.mode`. */
export interface ToolSearchProcessorOptions {
  /**
   * Every tool that can be searched and loaded. Ids must be unique and not `search_tools` /
   * `load_tool`; a key equal to another tool's id resolves key-first (id-first with a filter).
   */
  tools: Record<string, Tool<any, any>>;
  /** Also make the request's resolved tools (`args.tools`) searchable instead of sending them upfront. @default false */
  includeResolvedTools?: boolean;
  /**
   * Add a system message listing every tool (`` - `id`: description ``, descriptions over 150
   * characters cut to 147 + `...`), through the filter's `'search'` phase, so the model can
   * call `load_tool` without searching first (with `autoLoad`, a header pointing to
   * `search_tools`). Nothing is added when no tool is listed. The format of `@mastra/core`
   * 1.67+; available on every host. @default false
   */
  injectCatalog?: boolean;
  /**
   * Ours, opt-in, every search mode and storage (best with `search.mode: 'hybrid'`): at the first
   * step of each user message, the hits of its text whose confidence (an estimated probability
   * that the tool is one the request needs) reaches `minConfidence`, best first, are loaded as
   * `load_tool` would (filter phases 'search', 'load' and 'active'), at most `maxTools`, and
   * offered at that very step; one system message tells the model. With `storage: 'context'`
   * the preloads are derived again from the conversation's user messages at every step.
   * A `search_tools` call (without `search.autoLoad`) also loads its best hits at once, at most
   * `maxTools`, whose confidence for the model's query reaches `searchMinConfidence`, so the
   * search path costs two model calls instead of three.
   */
  preload?:
    | boolean
    | {
        /** @default 3 */
        maxTools?: number;
        /** From 0 to 1. @default 0.45 */
        minConfidence?: number;
        /** From 0 to 1, or `false`: a search never loads (its result is then the host's). @default 0 */
        searchMinConfidence?: number | false;
        /**
         * Called with what was preloaded (never for an empty preload): `trigger` `'message'` for a
         * user message's preload, `'search'` for a search_tools call's loads (`query`: its query).
         */
        onPreload?: (event: { threadId: string; trigger: 'message' | 'search'; query: string; tools: Array<{ name: string; confidence: number; learned?: true }> }) => void;
      };
  /**
   * Ours (learn hook, docs/learning.md): learning from use. A catalog tool the model called and
   * whose `execute` returned becomes evidence for requests like the one it served: preload
   * (every mode) and search_tools' ranking ('enhanced', 'hybrid') take it. Off by default.
   */
  learn?: boolean | ToolSearchLearnOptions;
  search?: {
    /** Maximum number of results. A non-negative integer. @default 5 */
    topK?: number;
    /** A result's score must be strictly greater than this. @default 0 */
    minScore?: number;
    /** Search activates its results; `load_tool` is not offered. @default false */
    autoLoad?: boolean;
    /**
     * `'compatible'` ranks exactly like `@mastra/core` 1.59.0. `'enhanced'` adds multilingual,
     * word-form-aware and typo-tolerant search (scores are on a different scale).
     * `'hybrid'` fuses `'enhanced'` with a static embedding model's ranking, so requests that
     * share no word with a description (paraphrases, other languages) still find the tool. It
     * needs the model: the package `mastra-native-processors-model-multilingual`, or `model`.
     * Scores are the fused score in (0, 1] (1 = first in both rankings).
     * @default 'compatible'
     */
    mode?: 'compatible' | 'enhanced' | 'hybrid';
    /**
     * With `mode: 'hybrid'`: a directory holding `model.bin`, or the file. Default: the installed
     * `mastra-native-processors-model-multilingual` package. Set without `mode: 'hybrid'`, it throws.
     */
    model?: string;
    /**
     * Ours, `mode: 'hybrid'` only: an AI SDK `EmbeddingModel` (e.g.
     * `openai.embedding('text-embedding-3-small')`) that ranks the semantic side in place of the
     * shipped model's vectors. Tool texts are embedded once (batched, cached by text), each query
     * once; a failure, a hang or a wrong shape falls back to the shipped model (or, without the
     * model package, to lexical ranking) with one warning per outage.
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
  /**
   * Where loaded-tool state lives: `'in-memory'` (this process), `'context'` (read back from
   * the conversation's messages), or a store such as `redisStore(client)` (ours, every host),
   * shared across processes. Names read from a store are re-checked every step against the
   * tools and the filter's `'load'` phase. Every store call is bounded (the store's
   * `timeoutMs`, default 500 ms); a failed read is "nothing loaded" for that step with one
   * warning per outage, a failed write makes `load_tool` / auto-loading `search_tools` say
   * the load did not take. @default 'in-memory'
   */
  storage?: 'in-memory' | 'context' | LoadedStateStore;
  /** Inactivity TTL of thread state in ms (a store's idle TTL unless it sets its own); 0 disables cleanup. @default 3600000 */
  ttl?: number;
  /** Request-aware gate for search results, loads and active tools. Only `true` allows. */
  filter?: (args: ToolSearchFilterArgs) => boolean | Promise<boolean>;
}

/** One `search_tools` result. */
/** Ours: `options.learn` (docs/learning.md). */
export interface ToolSearchLearnOptions {
  /** `'resource'`: what a resource (user) teaches serves only it; `'global'`: the deployment. @default 'resource' */
  scope?: 'resource' | 'global';
  /** `'in-memory'` or a learning store (ToolSearchLearnStore). @default 'in-memory' */
  store?: 'in-memory' | ToolSearchLearnStore;
  /** Cold start: example requests per tool id, learned as if served (trusted in scope 'global'). */
  seed?: Record<string, string[]>;
  /** @default 20000 */
  maxExamples?: number;
  /** @default 16777216 */
  maxBytes?: number;
  /** A learned example weighs half after this many days (Infinity: never fades). @default 30 */
  halfLifeDays?: number;
  /** Scope 'global': distinct resources that must agree before a tool is learned for others. @default 2 */
  minResources?: number;
  /** Learned confidence (0 to 1) a tool needs to be preloaded or moved up in search results. @default 0.45 */
  minConfidence?: number;
  /** Similarity (0 to 1) a past request needs to vote. @default 0.2 */
  minSimilarity?: number;
}

/** A learned example as a shared store carries it: `payload` is opaque (hashed terms and an int8 vector, base64). */
export interface ToolSearchLearnRecord {
  partition: string;
  resource: string;
  tool: string;
  time: number;
  payload: string;
}

/** Ours: a learning store (docs/learning.md): sees each learned example; may replay other processes' examples through `attach`'s sink. */
export interface ToolSearchLearnStore {
  append(record: ToolSearchLearnRecord): void | Promise<void>;
  attach?(sink: { addPayload(record: ToolSearchLearnRecord): boolean; forgetResource(resource: string): number; clear(): void }): void;
  forgetResource?(resource: string): void | Promise<void>;
  clear?(): void | Promise<void>;
}

export type ToolSearchResult = { name: string; description: string; score: number };

/** What `search_tools` returns (`activation` only on autoLoad searches with `storage: 'context'`). */
export type SearchToolsOutput = {
  results: ToolSearchResult[];
  message: string;
  activation?: { type: 'tool-search-auto-load'; version: 1; loaded: string[] };
};

/** What `load_tool` takes: one name or several. */
export type LoadToolInput = { toolName?: string; toolNames?: string[] };

/** What `load_tool` returns. */
export type LoadToolOutput = {
  success: boolean;
  message: string;
  loadedCount?: number;
  toolName?: string;
  loaded?: string[];
  notFound?: string[];
  alreadyLoaded?: string[];
};

/** The `search_tools` meta-tool (a Mastra `Tool`, as upstream types it). */
export type SearchToolsTool = Tool<{ query: string }, SearchToolsOutput, unknown, unknown, ToolExecutionContext<unknown, unknown, unknown>, 'search_tools', unknown>;

/** The `load_tool` meta-tool (not offered with `search.autoLoad`). */
export type LoadToolTool = Tool<LoadToolInput, LoadToolOutput, unknown, unknown, ToolExecutionContext<unknown, unknown, unknown>, 'load_tool', unknown>;

/** The tools a step offers: the request's tools, the meta-tools and the thread's loaded tools. */
export type ToolSearchStepTools = Record<string, Tool<any, any, any, any, any, any, any>> & {
  search_tools: SearchToolsTool;
  load_tool?: LoadToolTool;
};

/**
 * Dynamic tool discovery: the model gets `search_tools` and `load_tool` instead of every
 * tool. Drop-in replacement for `ToolSearchProcessor` from `@mastra/core/processors`.
 */
export declare class ToolSearchProcessor implements Processor<'tool-search'> {
  readonly id: 'tool-search';
  readonly name: 'Tool Search Processor';
  readonly description: 'Enables dynamic tool discovery and loading via search';
  constructor(options: ToolSearchProcessorOptions);
  processInputStep(args: ProcessInputStepArgs): Promise<{ tools: ToolSearchStepTools }>;
  getLoadedToolsForRequestContext(args?: {
    requestContext?: RequestContext;
    stepArgs?: ProcessInputStepArgs;
    tools?: Record<string, unknown>;
  }): Promise<Record<string, Tool<any, any>>>;
  /** Forgets a thread's loaded tools. With a `storage` store: a promise of the outcome, which never rejects. */
  clearState(threadId?: string): void | Promise<{ ok: boolean; error?: unknown }>;
  /** Forgets every thread's loaded tools (with a store: its whole namespace, as a promise of the outcome). */
  clearAllState(): void | Promise<{ ok: boolean; error?: unknown }>;
  /** In-memory state only: zeros for `'context'` or a store (whose TTL is its own). */
  getStateStats(): { threadCount: number; oldestAccessTime: number | null };
  /** Ours: the state's thread count and oldest access wherever it lives (a store's `stats()`, null when it does not answer). */
  getStoreStats(): Promise<StateStoreStats | null>;
  cleanupNow(): number;
  /** Ours (learn): forgets what one resource taught; returns how many examples were removed (0 when learn is off). */
  forgetLearnedResource(resourceId: string): number;
  /** Ours (learn): forgets every learned example (`learn.seed` stays). */
  forgetAllLearned(): void;
  /** Ours (learn): what learning holds, or null when learn is off. */
  getLearningStats(): { scope: 'resource' | 'global'; examples: number; seeds: number; resources: number; bytes: number } | null;
  /** Called by Mastra when the processor is registered: its logger receives store warnings. */
  __registerMastra(mastra: Mastra<any, any, any, any, any, any, any, any, any, any>): void;
  /** Stops background cleanup and releases all state; calling it twice is harmless. */
  dispose(): void;
}
