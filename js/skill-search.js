'use strict';
// SkillSearchProcessor: drop-in for @mastra/core@1.59.0's, with search on a native index.
//
// The JS layer keeps everything Mastra-shaped (meta-tools, MessageList, per-thread state
// holding instruction strings); the Rust index only sees skill texts when they change and
// query strings per search, and returns skill indices, document sources and scores.
//
// `search.mode: 'enhanced'` (opt-in) swaps the index for a multilingual BM25F one with one
// document per skill (name, description, SKILL.md body, references) and ranks load_skill's
// "Did you mean" names by edit distance and shared words too. Everything else is unchanged.

const { z } = require('zod/v4');
const { createTool } = require('@mastra/core/tools');
const { NativeSkillIndex, nativeSkillSuggestions } = require('./native.js');
const { describeValue, sameStrings } = require('./util.js');
const { resolveThreadId } = require('./thread-id.js');

const INSTRUCTION =
  'To discover available skills, call search_skills with a keyword query. ' +
  "To load a skill's instructions, call load_skill with the skill name. " +
  'Loaded skills provide context and instructions for the conversation.';

const SEARCH_DESCRIPTION =
  'Search for available skills by keyword. ' +
  'Returns a list of matching skills with their names and descriptions. ' +
  'After finding a useful skill, use load_skill to load its instructions.';

const LOAD_DESCRIPTION =
  "Load a skill's full instructions into the conversation. " +
  'Call this after finding a skill with search_skills. ' +
  "The skill's instructions will be available as context.";

// Schemas are immutable; build them once (the reference builds identical ones per step).
const searchInputSchema = z.object({
  query: z
    .string()
    .trim()
    .min(1, 'Query is required')
    .describe('Search keywords (e.g., "api design", "testing", "deployment")'),
});
const searchOutputSchema = z.object({
  results: z.array(
    z.object({
      name: z.string(),
      description: z.string(),
      score: z.number(),
    }),
  ),
  message: z.string(),
});
const loadInputSchema = z.object({
  skillName: z.string().describe('The exact name of the skill to load (from search results)'),
});
const loadOutputSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  skillName: z.string().optional(),
});

/** `options.search.mode`, validated here: the reference has no such option to mirror. */
function searchModeOf(options) {
  const mode = options?.search?.mode ?? 'compatible';
  if (mode !== 'compatible' && mode !== 'enhanced') {
    throw new TypeError(
      `SkillSearchProcessor: options.search.mode must be 'compatible' or 'enhanced'; received ${describeValue(mode)}.`,
    );
  }
  return mode;
}

/** JS `ToNumber` for the options the reference compares numerically. */
function toNumber(value) {
  return typeof value === 'number' ? value : Number(value);
}

/**
 * Longest time between two full (list()-based) re-checks, in ms. In between, a request's
 * re-check only re-gets the known skills (`skillsUnchanged`): that catches every refresh
 * (Mastra re-parses all skills, so each `references` array is new), every removal and every
 * in-place `addSkill()` update, but not a new skill added by `addSkill()` without a refresh,
 * since nothing about the known skills changes. Such a skill appears at the first re-check
 * (first search after a step 0) once this long has passed since the last full one.
 * list() resolves every skill's real path (hundreds of ms at 1,000 skills) while get() of
 * every skill costs a few ms; 5 s keeps list() off almost every request under load and
 * matches Mastra's own 5 s glob re-walk interval for noticing new skill directories.
 */
const FULL_CHECK_INTERVAL_MS = 5000;

/** What get() returned for a skill, as compared by the cheap re-check; null when missing. */
function snapshotOf(skill) {
  if (!skill || typeof skill !== 'object') return null;
  return {
    references: skill.references,
    instructions: skill.instructions,
    description: skill.description,
    path: skill.path,
  };
}

async function getSkill(skills, lookup) {
  try {
    return await skills.get(lookup);
  } catch {
    // Read like a missing skill, as the full read does.
    return null;
  }
}

/**
 * Cheap re-check: whether re-getting every known skill returns what the last full read saw.
 * `references` is compared by identity (a new array means the skill was re-parsed), the
 * strings by value. Only usable when some skill has a `references` array to witness a
 * refresh: with none (no skills, or a store without arrays) a refresh could go unseen.
 */
async function skillsUnchanged(skills, entries) {
  if (!entries.some(e => e.snapshot && Array.isArray(e.snapshot.references))) return false;
  const same = await Promise.all(
    entries.map(async e => {
      const now = snapshotOf(await getSkill(skills, e.lookup));
      const was = e.snapshot;
      if (!now || !was) return now === was;
      return (
        now.references === was.references &&
        now.instructions === was.instructions &&
        now.description === was.description &&
        now.path === was.path
      );
    }),
  );
  return same.every(Boolean);
}

/**
 * Full read: lists the skill set, reads it into entries (the index decides whether to rebuild).
 * Reference files are re-read only when `skill.references` is a new array, i.e. when the
 * workspace re-parsed the skill (which is when the reference re-indexes them too).
 */
async function readSkills(skills, previous) {
  const list = await skills.list();
  const nameCounts = new Map();
  for (const meta of list) nameCounts.set(meta.name, (nameCounts.get(meta.name) || 0) + 1);
  const prevByKey = new Map();
  if (previous) for (const e of previous.entries) prevByKey.set(`${e.name}\u0000${e.path}`, e);

  const entries = await Promise.all(
    list.map(async meta => {
      const name = meta.name;
      const path = meta.path;
      // A name shared by several skills resolves to one winner; read each by its own path.
      const lookup = nameCounts.get(name) > 1 && typeof path === 'string' ? path : name;
      const skill = await getSkill(skills, lookup);
      const instructions = skill && typeof skill.instructions === 'string' ? skill.instructions : '';
      const references = skill && Array.isArray(skill.references) ? skill.references : [];
      const prev = prevByKey.get(`${name}\u0000${path}`);
      let referenceTexts;
      if (prev && prev.references === references) {
        referenceTexts = prev.referenceTexts;
      } else {
        referenceTexts = await readReferences(skills, lookup, references);
        if (prev && sameStrings(prev.referenceTexts, referenceTexts)) referenceTexts = prev.referenceTexts;
      }
      return {
        name,
        path,
        description: typeof meta.description === 'string' ? meta.description : '',
        instructions,
        references,
        referenceTexts,
        lookup,
        snapshot: snapshotOf(skill),
      };
    }),
  );
  return { list, entries };
}

/** Contents of a skill's reference files; unreadable ones are skipped, as the reference does. */
async function readReferences(skills, lookup, references) {
  if (references.length === 0 || typeof skills.getReference !== 'function') return [];
  const texts = await Promise.all(
    references.map(async ref => {
      try {
        const text = await skills.getReference(lookup, `references/${ref}`);
        return typeof text === 'string' ? text : null;
      } catch {
        return null;
      }
    }),
  );
  return texts.filter(t => t !== null);
}

function entriesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (
      x.name !== y.name ||
      x.path !== y.path ||
      x.description !== y.description ||
      x.instructions !== y.instructions ||
      x.referenceTexts !== y.referenceTexts
    ) {
      return false;
    }
  }
  return true;
}

/** The reference's "Did you mean": names containing, or contained in, the request, in list order. */
function compatibleSuggestions(skillName, allSkills) {
  const wanted = skillName.toLowerCase();
  return allSkills
    .filter(s => s.name.toLowerCase().includes(wanted) || wanted.includes(s.name.toLowerCase()))
    .slice(0, 3)
    .map(s => s.name);
}

/** Enhanced "Did you mean": distinct names ranked natively (typos, shared words, substrings). */
function enhancedSuggestions(skillName, allSkills) {
  const names = [...new Set(allSkills.map(s => s.name).filter(n => typeof n === 'string'))];
  return Array.from(nativeSkillSuggestions(skillName, names, 3), i => names[i]);
}

/**
 * Processor that enables on-demand skill discovery and loading: `search_skills` and
 * `load_skill` meta-tools, loaded instructions injected as system messages per thread.
 */
class SkillSearchProcessor {
  // Our additions stay private so the instance's own keys match the reference's.
  /** Native index state: { skills, substring, entries, metaMap, native, declaredDocuments, fullCheckAt } */
  #index = null;
  /** Bumped by every step-0 refresh; an index checked before the latest bump is stale. */
  #generation = 0;
  #checkedGeneration = -1;
  /** In-flight re-check, shared by concurrent searches. */
  #syncing = null;
  #stats = { builds: 0, checks: 0, lastBuildMs: 0, lastCheckMs: 0 };
  /** `search.mode === 'enhanced'`; kept out of `searchConfig`, whose shape is the reference's. */
  #enhanced = false;

  constructor(options) {
    this.#enhanced = searchModeOf(options) === 'enhanced';
    this.id = 'skill-search';
    this.name = 'Skill Search Processor';
    this.description = 'Enables on-demand skill discovery and loading via search';
    this.providesSkillDiscovery = 'on-demand';
    this.workspace = options.workspace;
    this.searchConfig = {
      topK: options.search?.topK ?? 5,
      minScore: options.search?.minScore ?? 0,
    };
    this.ttl = options.ttl ?? 3600000;
    this.cleanupIntervalId = undefined;
    this.threadLoadedSkills = new Map();

    if (this.ttl > 0) {
      // A WeakRef lets an undisposed processor be garbage-collected; the timer then stops itself.
      const self = new WeakRef(this);
      const id = setInterval(() => {
        const processor = self.deref();
        if (processor) processor.#cleanupStaleState();
        else clearInterval(id);
      }, Math.max(this.ttl / 2, 60000));
      if (id.unref) id.unref();
      this.cleanupIntervalId = id;
    }
  }

  /** Stops the cleanup timer and releases all state and the index. Safe to call repeatedly. */
  dispose() {
    if (this.cleanupIntervalId) {
      clearInterval(this.cleanupIntervalId);
      this.cleanupIntervalId = undefined;
    }
    this.clearAllState();
    this.#index = null;
    this.#checkedGeneration = -1;
  }

  #getThreadState(threadId) {
    let state = this.threadLoadedSkills.get(threadId);
    if (!state) {
      state = { skills: new Map(), lastAccessed: Date.now() };
      this.threadLoadedSkills.set(threadId, state);
    }
    state.lastAccessed = Date.now();
    return state;
  }

  clearState(threadId = 'default') {
    this.threadLoadedSkills.delete(threadId);
  }

  clearAllState() {
    this.threadLoadedSkills.clear();
  }

  #cleanupStaleState() {
    if (this.ttl <= 0) return 0;
    const now = Date.now();
    let cleaned = 0;
    for (const [threadId, state] of this.threadLoadedSkills.entries()) {
      if (now - state.lastAccessed > this.ttl) {
        this.threadLoadedSkills.delete(threadId);
        cleaned++;
      }
    }
    return cleaned;
  }

  getStateStats() {
    if (this.threadLoadedSkills.size === 0) return { threadCount: 0, oldestAccessTime: null };
    let oldest = Date.now();
    for (const state of this.threadLoadedSkills.values()) {
      if (state.lastAccessed < oldest) oldest = state.lastAccessed;
    }
    return { threadCount: this.threadLoadedSkills.size, oldestAccessTime: oldest };
  }

  cleanupNow() {
    return this.#cleanupStaleState();
  }

  /**
   * Index statistics (not in the reference): skills and documents indexed, distinct terms,
   * how many times the index was built and checked, and the last durations in ms.
   */
  getIndexStats() {
    const index = this.#index;
    return {
      skillCount: index ? index.native.skillCount : 0,
      documentCount: index ? index.native.documentCount : 0,
      termCount: index ? index.native.termCount : 0,
      builds: this.#stats.builds,
      checks: this.#stats.checks,
      lastBuildMs: this.#stats.lastBuildMs,
      lastCheckMs: this.#stats.lastCheckMs,
    };
  }

  /** Whether the workspace searches by substring (no BM25 and no vector engine). */
  #substringMode() {
    // Enhanced mode ranks with its own index whatever engine the workspace has.
    if (this.#enhanced) return false;
    const ws = this.workspace;
    return ws != null && ws.canBM25 === false && ws.canVector !== true;
  }

  /** The index for `skills`, re-checked (and rebuilt only if something changed) when stale. */
  async #ensureIndex(skills) {
    const index = this.#index;
    if (index && index.skills === skills && this.#checkedGeneration === this.#generation) return index;
    if (!this.#syncing) {
      this.#syncing = this.#sync(skills).finally(() => {
        this.#syncing = null;
      });
    }
    const synced = await this.#syncing;
    // A different skills object may have raced in; check again for it.
    return synced.skills === skills ? synced : this.#ensureIndex(skills);
  }

  async #sync(skills) {
    const started = performance.now();
    const generation = this.#generation;
    const previous = this.#index && this.#index.skills === skills ? this.#index : null;
    const substring = this.#substringMode();

    // Cheap path: the known skills are unchanged and a full check ran recently enough
    // (a negative age means the wall clock went back; check fully rather than trust it).
    const sinceFullCheck = previous ? Date.now() - previous.fullCheckAt : NaN;
    if (
      previous &&
      previous.substring === substring &&
      sinceFullCheck >= 0 &&
      sinceFullCheck < FULL_CHECK_INTERVAL_MS &&
      (await skillsUnchanged(skills, previous.entries))
    ) {
      this.#stats.checks++;
      this.#checkedGeneration = generation;
      this.#stats.lastCheckMs = performance.now() - started;
      return previous;
    }

    const fullCheckAt = Date.now();
    const { list, entries } = await readSkills(skills, previous);
    this.#stats.checks++;

    let index = previous;
    if (!previous || previous.substring !== substring || !entriesEqual(previous.entries, entries)) {
      const buildStart = performance.now();
      const referenceCounts = [];
      const referenceTexts = [];
      let declaredDocuments = 0;
      for (const e of entries) {
        referenceCounts.push(e.referenceTexts.length);
        for (const t of e.referenceTexts) referenceTexts.push(t);
        declaredDocuments += 1 + e.references.length;
      }
      const native = new NativeSkillIndex(
        entries.map(e => (typeof e.name === 'string' ? e.name : String(e.name))),
        entries.map(e => e.description),
        entries.map(e => e.instructions),
        referenceCounts,
        referenceTexts,
        declaredDocuments,
        substring,
        this.#enhanced,
      );
      index = { skills, substring, entries, metaMap: null, native, declaredDocuments, fullCheckAt };
      this.#stats.builds++;
      this.#stats.lastBuildMs = performance.now() - buildStart;
    } else {
      // Same content, but keep the new snapshots so the next cheap check compares with them.
      index.entries = entries;
      index.fullCheckAt = fullCheckAt;
    }
    // Descriptions come from list() like the reference's metaMap (a later duplicate wins).
    index.metaMap = new Map(list.map(s => [s.name, s]));
    this.#index = index;
    this.#checkedGeneration = generation;
    this.#stats.lastCheckMs = performance.now() - started;
    return index;
  }

  async #search(skills, query) {
    const index = await this.#ensureIndex(skills);
    const hits = index.native.search(
      query,
      toNumber(this.searchConfig.topK),
      toNumber(this.searchConfig.minScore),
    );
    if (hits.skills.length === 0) {
      return { results: [], message: `No skills found matching "${query}". Try different keywords.` };
    }
    // De-duplicate by skill (SKILL.md and reference hits of one skill), first hit wins.
    // Enhanced hits are already one per skill name; the pass is then a no-op.
    const seen = new Set();
    const results = [];
    for (let i = 0; i < hits.skills.length; i++) {
      const name = index.entries[hits.skills[i]].name;
      if (seen.has(name)) continue;
      seen.add(name);
      const meta = index.metaMap.get(name);
      const description = meta?.description ?? '';
      results.push({
        name,
        description: description.length > 150 ? description.slice(0, 147) + '...' : description,
        score: Math.round(hits.scores[i] * 100) / 100,
      });
    }
    return {
      results,
      message: `Found ${results.length} skill(s). Use load_skill with the exact skill name to load its instructions.`,
    };
  }

  async processInputStep(args) {
    const { tools, messageList } = args;
    // Difference 6: falls back to the memory thread before the shared 'default'.
    const threadId = resolveThreadId(args.requestContext) || 'default';
    const threadState = this.#getThreadState(threadId);
    const skills = this.workspace.skills;

    if (!skills) {
      return { tools };
    }

    if (args.stepNumber === 0) {
      await skills.maybeRefresh({ requestContext: args.requestContext });
      // The refresh may have changed skills; re-check lazily at the next search.
      this.#generation++;
    }

    messageList.addSystem(INSTRUCTION);

    const searchSkillTool = createTool({
      id: 'search_skills',
      description: SEARCH_DESCRIPTION,
      inputSchema: searchInputSchema,
      outputSchema: searchOutputSchema,
      execute: async ({ query }) => this.#search(skills, query),
    });

    const loadSkillTool = createTool({
      id: 'load_skill',
      description: LOAD_DESCRIPTION,
      inputSchema: loadInputSchema,
      outputSchema: loadOutputSchema,
      execute: async ({ skillName }) => {
        if (threadState.skills.has(skillName)) {
          return { success: true, message: `Skill "${skillName}" is already loaded.`, skillName };
        }
        const skill = await skills.get(skillName);
        if (!skill) {
          const allSkills = await skills.list();
          const suggestions = this.#enhanced
            ? enhancedSuggestions(skillName, allSkills)
            : compatibleSuggestions(skillName, allSkills);
          let message = `Skill "${skillName}" not found.`;
          if (suggestions.length > 0) {
            message += ` Did you mean: ${suggestions.join(', ')}?`;
          } else {
            message += ' Use search_skills to find available skills.';
          }
          return { success: false, message };
        }
        threadState.skills.set(skillName, skill.instructions);
        return {
          success: true,
          message: `Skill "${skillName}" loaded. Its instructions are now available as context.`,
          skillName,
        };
      },
    });

    for (const [skillName, instructions] of threadState.skills) {
      messageList.addSystem(`[Skill: ${skillName}]\n\n${instructions}`);
    }

    const metaTools = { search_skills: searchSkillTool, load_skill: loadSkillTool };
    if (tools) {
      for (const key of Object.keys(tools)) {
        if (key in metaTools) {
          console.warn(`[SkillSearchProcessor] User tool "${key}" conflicts with meta-tool and will be shadowed.`);
        }
      }
    }

    return { tools: { ...(tools ?? {}), ...metaTools } };
  }
}

module.exports = { SkillSearchProcessor };
