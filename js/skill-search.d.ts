import type { ProcessInputStepArgs, Processor } from '@mastra/core/processors';
import type { Workspace } from '@mastra/core/workspace';

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
     * Any other value throws a `TypeError`.
     * @default 'compatible'
     */
    mode?: 'compatible' | 'enhanced';
  };
  /** Inactivity time-to-live of per-thread state in ms; 0 disables cleanup. @default 3600000 */
  ttl?: number;
}

/** Index statistics (not in `@mastra/core`). */
export interface SkillIndexStats {
  skillCount: number;
  /** SKILL.md bodies plus readable reference files (enhanced mode folds each skill's into one indexed document). */
  documentCount: number;
  /** Distinct terms of the compatible index; 0 in enhanced mode. */
  termCount: number;
  /** Times the native index was built (only when the skill set or content changed). */
  builds: number;
  /** Times the index was checked against the workspace (first search after each step-0 refresh). */
  checks: number;
  lastBuildMs: number;
  lastCheckMs: number;
}

/**
 * On-demand skill discovery: `search_skills` and `load_skill` meta-tools, loaded skills
 * injected as system messages per thread. Drop-in replacement for `SkillSearchProcessor`
 * from `@mastra/core/processors` (1.59.0 behaviour), searching a native index that also
 * covers skill names and descriptions.
 */
export declare class SkillSearchProcessor implements Processor<'skill-search'> {
  readonly id: 'skill-search';
  readonly name: 'Skill Search Processor';
  readonly description: 'Enables on-demand skill discovery and loading via search';
  readonly providesSkillDiscovery: 'on-demand';
  private readonly workspace;
  private readonly searchConfig;
  private readonly ttl;
  private cleanupIntervalId?;
  private threadLoadedSkills;
  constructor(options: SkillSearchProcessorOptions);
  /** Stops the cleanup timer and releases all state and the index; calling it twice is harmless. */
  dispose(): void;
  /** Clears one thread's loaded skills (`'default'` when omitted). */
  clearState(threadId?: string): void;
  clearAllState(): void;
  getStateStats(): { threadCount: number; oldestAccessTime: number | null };
  /** Removes threads idle longer than `ttl`; returns how many. */
  cleanupNow(): number;
  getIndexStats(): SkillIndexStats;
  processInputStep(args: ProcessInputStepArgs): Promise<{ tools: Record<string, unknown> | undefined }>;
}
