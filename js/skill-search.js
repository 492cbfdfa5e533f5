'use strict';
// SkillSearchProcessor: drop-in for the installed @mastra/core's (1.58–1.71), with search on a
// native index.
//
// The JS layer keeps everything Mastra-shaped (meta-tools, MessageList, per-thread state
// holding instruction strings); the Rust index only sees skill texts when they change and
// query strings per search, and returns skill indices, document sources and scores.
//
// Host rules come from js/host.js: the step-0 refresh ('blocking-throws' on 1.58/1.59,
// 'background-logged' with `blockingRefresh` on 1.60+) and the memory-thread parsing. On every
// host, request-scoped skills (`workspace.skills.getScoped({ requestContext })`) are used
// whenever offered: each scope (skills view) has its own native index, and a thread's loaded
// skills are shown in a scope only when that scope's own get() returns the same instructions.
// Freshness: Mastra's own skills objects are change-tracked (trackerOf below), so a re-check
// reads the skills only after a refresh/addSkill/removeSkill (and then at the next search);
// other skills objects keep the per-skill get() check plus a full list() check every 5 s.
//
// `search.mode: 'enhanced'` (opt-in) swaps the index for a multilingual BM25F one with one
// document per skill (name, description, SKILL.md body, references) and ranks load_skill's
// "Did you mean" names by edit distance and shared words too. Everything else is unchanged.
// `search.mode: 'hybrid'` (opt-in) is enhanced fused with a static embedding model's ranking
// (js/semantic.js finds and loads the model once per process).

const { hostModulesOf, perZod } = require('./host-modules.js');
const { NativeSkillIndex, nativeSkillSuggestions } = require('./native.js');
const { describeValue, sameStrings } = require('./util.js');
const { confidencesOf, lastUserText, notifyPreload, preloadOptionsOf } = require('./preload.js');
const { EmbedderSide, embedderOptionsOf } = require('./embedder.js');
const { resolveThreadIdFor, sharedThreadKey } = require('./thread-id.js');
const { decodeTexts, encodeText, encodeTexts } = require('./lossless.js');
const { assertStateStore, bindStateStore, guardStateStore } = require('./stores/index.js');
const { host } = require('./host.js');
const { checkOptions } = require('./options.js');
const { searchModeOf: checkSearchMode, loadSemanticModel } = require('./semantic.js');

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

// Schemas are immutable; build them once per zod instance (the reference builds identical
// ones per step). The zod and createTool are the ones the app's module system resolves
// (js/host-modules.js: the ESM entry binds the imported copies).
const schemasFor = perZod(z => ({
  searchInput: z.object({
    query: z
      .string()
      .trim()
      .min(1, 'Query is required')
      .describe('Search keywords (e.g., "api design", "testing", "deployment")'),
  }),
  searchOutput: z.object({
    results: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        score: z.number(),
      }),
    ),
    message: z.string(),
  }),
  loadInput: z.object({
    skillName: z.string().describe('The exact name of the skill to load (from search results)'),
  }),
  loadOutput: z.object({
    success: z.boolean(),
    message: z.string(),
    skillName: z.string().optional(),
  }),
}));

/** What 1.60+ hosts log (at warn level) when a step-0 refresh rejects. */
const REFRESH_FAILED = 'SkillSearchProcessor: skills refresh failed';

/**
 * Most request scopes (`workspace.skills.getScoped()` views) whose native index is kept;
 * the least recently used beyond this is dropped (and rebuilt if it comes back). Scopes idle
 * longer than `ttl` are dropped by the cleanup sweep as well.
 */
const MAX_CACHED_SCOPES = 32;

/** `options.blockingRefresh`: a boolean, or nullish for the host's default. */
function blockingRefreshOf(options) {
  const value = options?.blockingRefresh;
  if (value == null) return undefined;
  if (typeof value !== 'boolean') {
    throw new TypeError(
      `SkillSearchProcessor: options.blockingRefresh must be a boolean (true or false); received ${describeValue(value)}.`,
    );
  }
  return value;
}

/** Scopes remembered per loaded variant; an older one forgotten is re-confirmed when it returns. */
const MAX_SCOPES_PER_VARIANT = 8;

/** The variant of a loaded key that belongs to scope `scopeId`, if any. */
function variantIn(variants, scopeId) {
  return variants?.find(v => v.scopes.has(scopeId));
}

/**
 * Records `instructions` as loaded for `name` in `scopeId` (in-memory state): false when the same
 * text was loaded already (in another scope it is then tagged for this one too), true when new.
 */
function rememberVariant(threadState, name, instructions, scopeId) {
  const variants = threadState.skills.get(name);
  const same = variants?.find((v) => v.instructions === instructions);
  if (same) {
    tagScope(same, scopeId);
    return false;
  }
  const variant = { instructions, scopes: new Set([scopeId]) };
  if (variants) variants.push(variant);
  else threadState.skills.set(name, [variant]);
  return true;
}

/** What a user's embedder embeds for a skill: its name, description and the start of its body. */
function skillEmbedText(entry) {
  const text = `${entry.name}: ${entry.description ?? ''}\n\n${entry.instructions ?? ''}`;
  return text.length > 2000 ? text.slice(0, 2000) : text;
}

function tagScope(variant, scopeId) {
  variant.scopes.add(scopeId);
  if (variant.scopes.size > MAX_SCOPES_PER_VARIANT) variant.scopes.delete(variant.scopes.values().next().value);
}

/** The capability answers this processor follows: the installed host's (js/host.js). */
function capabilitiesOf() {
  return host.capabilities;
}

/**
 * `preload` defaults. Stricter than the tools' (one skill, 0.6): a skill's instructions are long,
 * so a wrong one costs far more prompt than a wrong tool definition. The confidence model is the
 * tools' (fitted on tool catalogs; no skill-retrieval set exists to fit one on).
 */
const PRELOAD_MAX_SKILLS = 1;
const PRELOAD_MIN_CONFIDENCE = 0.6;

/** Every option this processor knows (on every host); others are warned about, not rejected. */
const OPTION_SCHEMA = {
  name: 'SkillSearchProcessor',
  keys: ['workspace', 'search', 'ttl', 'blockingRefresh', 'storage', 'preload'],
  nested: { search: ['topK', 'minScore', 'mode', 'model', 'embedder', 'embedderTimeoutMs', 'embeddingCache'], preload: ['maxSkills', 'minConfidence', 'onPreload'] },
  required: { workspace: 'a Mastra Workspace with skills' },
};

/**
 * `options.workspace` must be an object. A workspace without skills is accepted, as by the
 * host (every step then passes the tools through), but that is nearly always a setup mistake,
 * so it gets one warning.
 */
function checkWorkspace(workspace) {
  if (typeof workspace !== 'object' || Array.isArray(workspace)) {
    throw new TypeError(
      `SkillSearchProcessor: options.workspace must be a Mastra Workspace with skills; received ${describeValue(workspace)}.`,
    );
  }
  if (!workspace.skills) {
    console.warn(
      'SkillSearchProcessor: options.workspace has no skills, so search_skills and load_skill are not offered; ' +
        "create the Workspace with skills, e.g. new Workspace({ filesystem, skills: ['skills'] }).",
    );
  }
}

/**
 * `search.topK`, `search.minScore` and `ttl` must be numbers when given (the host forwards them
 * unchecked, so a string or object fails somewhere inside a search or never expires state).
 * Values the host gives a meaning stay valid: `topK` 0, any `minScore`, `ttl` <= 0 (no expiry).
 */
function checkNumbers(options) {
  const checks = [
    ['options.search.topK', options.search?.topK, (v) => Number.isInteger(v) && v >= 0, 'a non-negative integer'],
    ['options.search.minScore', options.search?.minScore, Number.isFinite, 'a finite number'],
    ['options.ttl', options.ttl, (v) => typeof v === 'number' && !Number.isNaN(v), 'a number of milliseconds (0 or less: never expire)'],
  ];
  for (const [path, value, valid, expected] of checks) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !valid(value)) {
      throw new TypeError(`SkillSearchProcessor: ${path} must be ${expected}; received ${describeValue(value)}.`);
    }
  }
  const search = options.search;
  if (search !== undefined && search !== null && (typeof search !== 'object' || Array.isArray(search))) {
    throw new TypeError(`SkillSearchProcessor: options.search must be an object; received ${describeValue(search)}.`);
  }
}

/**
 * `options.storage` (ours on every host; the reference keeps loaded skills in memory only):
 * 'in-memory' (default) or a state store such as redisStore(client). Returns the store or
 * undefined for in-memory.
 */
function storageOf(options) {
  const storage = options?.storage ?? 'in-memory';
  if (storage === 'in-memory') return undefined;
  const expected = "'in-memory' or a state store such as redisStore(client)";
  if (storage === null || (typeof storage !== 'object' && typeof storage !== 'function')) {
    throw new TypeError(`SkillSearchProcessor: options.storage must be ${expected}; received ${describeValue(storage)}.`);
  }
  try {
    assertStateStore(storage, 'options.storage');
  } catch (error) {
    // The store layer's message names 'context' too, which skills do not have.
    throw new TypeError(
      `SkillSearchProcessor: options.storage must be ${expected}; ${error.message.replace(/^.*; received /, 'received ')}`,
    );
  }
  return storage;
}

/** `options.search.mode` (and `search.model`), validated here: the reference has no such options to mirror. */
function searchModeOf(options) {
  return checkSearchMode(options?.search, 'SkillSearchProcessor');
}

/** JS `ToNumber` for the options the reference compares numerically. */
function toNumber(value) {
  return typeof value === 'number' ? value : Number(value);
}

/**
 * Untracked skills objects (see the change tracking below): longest time between two full
 * (list()-based) re-checks, in ms. In between, a request's
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

/**
 * Change tracking for Mastra's own skills objects (`WorkspaceSkillsImpl`, every host 1.58–1.71).
 *
 * Mastra offers no public change signal (no version counter, event or timestamp: its discovery
 * time and catalog are private fields), but its catalog changes only inside its own public
 * methods: `refresh()` (also what `maybeRefresh()` calls when the skills folders are stale or
 * the resolved paths changed), `addSkill()` and `removeSkill()`; the first discovery runs inside
 * whichever call comes first. So each method of such an object is wrapped (own, non-enumerable
 * properties that call the prototype's method, return its result and rethrow its errors):
 * a call of a method that may change the catalog counts as a change when it starts and again
 * when it settles. A re-check that finds the count unchanged since its last full read knows no
 * skill was added, removed or re-parsed (get() and list() would answer as then), so it makes
 * no skills call at all; a changed count makes it read fully (list(), get() per skill).
 * (Verified against every host's sources 1.58–1.71: the catalog map and its entries are
 * written only by the first discovery, refresh, addSkill and removeSkill.)
 *
 * Calls that only read count as changes too while a change is in flight: on 1.58/1.59
 * `refresh()` clears the catalog first, and a read arriving meanwhile starts its own discovery,
 * which may finish after the refresh. A rejected `refresh()` (1.58/1.59 then rediscover lazily
 * at some later read) or a rejected unknown method stops trusting the count until a
 * `refresh()` succeeds. Objects of any other class (custom skills objects, subclasses, a
 * bundled renamed copy), objects with own methods already (spied or patched), and objects whose
 * wrappers were later replaced, are not tracked: those keep the interval-based full check.
 */
const CATALOG_READS = new Set([
  'getScoped',
  'list',
  'get',
  'has',
  'maybeRefresh',
  'search',
  'getReference',
  'getScript',
  'getAsset',
  'listReferences',
  'listScripts',
  'listAssets',
  'registerLocationAlias',
  'releaseSearchIndex',
]);
/** Known methods whose rejection leaves the catalog as it settled (others stop the trust). */
const SETTLING_CHANGES = new Set(['addSkill', 'removeSkill']);
/** The methods a skills object needs for its changes to be tracked. */
const REQUIRED_METHODS = ['list', 'get', 'refresh', 'maybeRefresh', 'addSkill', 'removeSkill'];

/** skills object -> its tracker, or null when it cannot be tracked. Shared by all processors. */
const trackers = new WeakMap();

/** The change tracker of a skills object (installed on first sight), or null. */
function trackerOf(skills) {
  let tracker = trackers.get(skills);
  if (tracker === undefined) {
    tracker = instrumentSkills(skills);
    trackers.set(skills, tracker);
  }
  return tracker;
}

function instrumentSkills(skills) {
  const proto = Object.getPrototypeOf(skills);
  if (
    !proto ||
    Object.getPrototypeOf(proto) !== Object.prototype ||
    !Object.prototype.hasOwnProperty.call(proto, 'constructor') ||
    proto.constructor.name !== 'WorkspaceSkillsImpl' ||
    !Object.isExtensible(skills)
  ) {
    return null;
  }
  const names = Object.getOwnPropertyNames(proto).filter(name => {
    if (name === 'constructor') return false;
    return typeof Object.getOwnPropertyDescriptor(proto, name).value === 'function';
  });
  if (REQUIRED_METHODS.some(name => !names.includes(name))) return null;
  if (names.some(name => Object.prototype.hasOwnProperty.call(skills, name))) return null;

  const tracker = { changes: 0, pending: 0, failed: false, wrappers: [] };
  for (const name of names) {
    const reads = CATALOG_READS.has(name);
    const settle = ok => {
      tracker.pending--;
      tracker.changes++;
      if (name === 'refresh') {
        if (ok) tracker.failed = false;
        else tracker.failed = true;
      } else if (!ok && !reads && !SETTLING_CHANGES.has(name)) {
        tracker.failed = true;
      }
    };
    const wrapper = {
      [name](...args) {
        const method = proto[name];
        if (reads && tracker.pending === 0) return method.apply(this, args);
        tracker.pending++;
        tracker.changes++;
        let result;
        try {
          result = method.apply(this, args);
        } catch (error) {
          settle(reads);
          throw error;
        }
        if (result === null || (typeof result !== 'object' && typeof result !== 'function') || typeof result.then !== 'function') {
          settle(true);
          return result;
        }
        // A chained promise: an ignored rejection stays unhandled for the caller, as without us.
        return result.then(
          value => {
            settle(true);
            return value;
          },
          error => {
            settle(reads);
            throw error;
          },
        );
      },
    }[name];
    Object.defineProperty(skills, name, { value: wrapper, writable: true, configurable: true, enumerable: false });
    tracker.wrappers.push([name, wrapper]);
  }
  return tracker;
}

/** Whether a tracker's count can be trusted now: no failed refresh, every wrapper still in place. */
function trackerTrusted(skills, tracker) {
  if (tracker === null || tracker.failed) return false;
  for (const [name, wrapper] of tracker.wrappers) {
    if (skills[name] !== wrapper) return false;
  }
  return true;
}

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
  return Array.from(nativeSkillSuggestions(encodeText(skillName), encodeTexts(names), 3), i => names[i]);
}

/**
 * Processor that enables on-demand skill discovery and loading: `search_skills` and
 * `load_skill` meta-tools, loaded instructions injected as system messages per thread.
 */
class SkillSearchProcessor {
  // Our additions stay private so the instance's own keys match the host's.
  /** Per-scope index state (see #scopeFor), most recently used last. */
  #scopes = new Map();
  /** Identity numbers of scoped skills views, for the per-thread loaded-skill scope tags. */
  #scopeIds = new WeakMap();
  #nextScopeId = 1;
  #stats = { builds: 0, checks: 0, lastBuildMs: 0, lastCheckMs: 0 };
  /** `search.mode` is 'enhanced' or 'hybrid'; kept out of `searchConfig`, whose shape is the reference's. */
  #enhanced = false;
  /** `search.mode === 'hybrid'`: the loaded static embedding model, else null. */
  #model = null;
  /** `storage: <store>`: the guarded shared store of loaded names, else undefined (in-memory). */
  #shared = undefined;
  /** The host's refresh contract: 'blocking-throws' (1.58/1.59) or 'background-logged' (1.60+). */
  #refreshRule = 'blocking-throws';
  /** On 1.58/1.59 hosts, whose processor has no such fields: blockingRefresh and the logger. */
  #blocking = true;
  #logger = undefined;
  /** How the thread id reads the memory context: 'lenient' (1.58/1.59) or 'parsed' (1.60+). */
  #memoryThread = 'lenient';
  /** `options.preload` (ours) as `{ max, minConfidence, onPreload }`, or undefined. */
  #preload = undefined;
  /** The search mode, for preload's confidence model. */
  #mode = 'compatible';
  /** `search.embedder` (ours, 'hybrid'): the user's EmbeddingModel on the semantic side, or undefined. */
  #embedder = undefined;

  constructor(options) {
    checkOptions(options, OPTION_SCHEMA);
    checkWorkspace(options.workspace);
    checkNumbers(options);
    const search = searchModeOf(options);
    this.#enhanced = search.mode === 'enhanced' || search.mode === 'hybrid';
    if (search.mode === 'hybrid') this.#model = loadSemanticModel(search.model, 'SkillSearchProcessor');
    this.#mode = search.mode ?? 'compatible';
    const embedder = embedderOptionsOf(options.search, this.#mode, 'SkillSearchProcessor');
    if (embedder) this.#embedder = new EmbedderSide(embedder, () => this.logger ?? this.#logger, 'SkillSearchProcessor', "the shipped model's vectors");
    this.#preload = preloadOptionsOf(options.preload, {
      kind: 'SkillSearchProcessor',
      countKey: 'maxSkills',
      max: PRELOAD_MAX_SKILLS,
      minConfidence: PRELOAD_MIN_CONFIDENCE,
    });
    const storage = storageOf(options);
    const blocking = blockingRefreshOf(options);
    const capabilities = capabilitiesOf(options);
    this.#refreshRule = capabilities.skillRefresh;
    this.#memoryThread = capabilities.skillSearchMemoryThread;
    const hostFields = this.#refreshRule === 'background-logged';
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
    if (storage) {
      // The host cleans up only when `ttl > 0`: anything else never expires (store TTL 0).
      const ttl = toNumber(this.ttl);
      const ttlMs = Number.isFinite(ttl) && ttl > 0 ? ttl : 0;
      const bound = bindStateStore(storage, { kind: 'skill-search', ttlMs }, 'options.storage');
      this.#shared = guardStateStore(bound, {
        getLogger: () => this.logger ?? this.#logger,
        label: 'SkillSearchProcessor',
      });
    }
    if (hostFields) {
      // 1.60+ hosts: the same own fields, in the same order, as the host's processor.
      this.blockingRefresh = blocking ?? false;
      this.logger = undefined;
    } else {
      this.#blocking = blocking ?? true;
    }
    this.cleanupIntervalId = undefined;
    this.threadLoadedSkills = new Map();
    if (hostFields) {
      /** Logs a refresh failure; never throws. */
      this.warnRefreshFailed = error => {
        (this.logger ?? console).warn(REFRESH_FAILED, { error });
      };
    }

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

  /** Called by Mastra when the processor is registered: its logger receives refresh failures. */
  __registerMastra(mastra) {
    const logger = mastra.getLogger();
    if (this.#refreshRule === 'background-logged') this.logger = logger;
    else this.#logger = logger;
  }

  /** Stops the cleanup timer and releases all state and the indexes. Safe to call repeatedly. */
  dispose() {
    if (this.cleanupIntervalId) {
      clearInterval(this.cleanupIntervalId);
      this.cleanupIntervalId = undefined;
    }
    // A shared store is left alone: other processes use it.
    if (!this.#shared) this.clearAllState();
    this.#scopes.clear();
    this.#embedder?.dispose();
  }

  #getThreadState(threadId) {
    let state = this.threadLoadedSkills.get(threadId);
    if (!state) {
      // skills: loaded key -> variants [{ instructions, scopes }] (see #loadedIn).
      state = { skills: new Map(), lastAccessed: Date.now() };
      this.threadLoadedSkills.set(threadId, state);
    }
    state.lastAccessed = Date.now();
    return state;
  }

  /** With a store: a promise of `{ ok, error? }` that never rejects (bounded). */
  clearState(threadId = 'default') {
    if (this.#shared) return settledOf(this.#shared.clear(sharedThreadKey(threadId, 'SkillSearchProcessor.clearState')));
    this.threadLoadedSkills.delete(threadId);
  }

  /** With a store: every thread of the store's namespace, as a promise of `{ ok, error? }`. */
  clearAllState() {
    if (this.#shared) return settledOf(this.#shared.clearAll());
    this.threadLoadedSkills.clear();
  }

  /**
   * Thread count and oldest access time (ours): the store's `stats()` with a store (null when
   * it does not answer), else `getStateStats()`.
   */
  async getStoreStats() {
    if (!this.#shared) return this.getStateStats();
    const result = await this.#shared.stats();
    return result.ok ? result.value : null;
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
    // Scope indexes idle as long are dropped too (not counted: the count is about threads).
    for (const [skills, scope] of this.#scopes) {
      if (now - scope.lastUsed > this.ttl) this.#scopes.delete(skills);
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
   * Index statistics (not in the reference): skills and documents of the most recently used
   * scope's index, distinct terms, how many scopes hold an index, how many times an index was
   * built and checked, and the last durations in ms.
   */
  getIndexStats() {
    let index = null;
    for (const scope of this.#scopes.values()) index = scope.index ?? index;
    return {
      skillCount: index ? index.native.skillCount : 0,
      documentCount: index ? index.native.documentCount : 0,
      termCount: index ? index.native.termCount : 0,
      scopeCount: this.#scopes.size,
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

  /**
   * The index state of one skills view (a request scope, or the workspace's own skills),
   * marked most recently used. Each scope has its own native index, generation and re-check,
   * so nothing searched in one scope can come from another.
   */
  #scopeFor(skills) {
    let scope = this.#scopes.get(skills);
    if (scope) {
      this.#scopes.delete(skills);
    } else {
      scope = {
        skills,
        tracker: trackerOf(skills),
        index: null,
        generation: 0,
        checkedGeneration: -1,
        syncing: null,
        lastUsed: 0,
      };
    }
    scope.lastUsed = Date.now();
    this.#scopes.set(skills, scope);
    while (this.#scopes.size > MAX_CACHED_SCOPES) {
      this.#scopes.delete(this.#scopes.keys().next().value);
    }
    return scope;
  }

  #scopeIdOf(skills) {
    let id = this.#scopeIds.get(skills);
    if (id === undefined) {
      id = this.#nextScopeId++;
      this.#scopeIds.set(skills, id);
    }
    return id;
  }

  /** The scope's index, re-checked (and rebuilt only if something changed) when stale. */
  async #ensureIndex(scope) {
    // A tracked skills object changed since the index was read (or became trusted again after
    // an untracked read): re-check now, at any search.
    const tracker = scope.tracker;
    if (tracker && scope.index && scope.checkedGeneration === scope.generation) {
      const stamp = scope.index.stamp;
      if (stamp != null ? stamp !== tracker.changes : trackerTrusted(scope.skills, tracker)) scope.generation++;
    }
    // Loop: a refresh may settle (bumping the generation) while a re-check is in flight.
    while (!scope.index || scope.checkedGeneration !== scope.generation) {
      if (!scope.syncing) {
        scope.syncing = this.#sync(scope).finally(() => {
          scope.syncing = null;
        });
      }
      await scope.syncing;
    }
    return scope.index;
  }

  async #sync(scope) {
    const started = performance.now();
    const generation = scope.generation;
    const skills = scope.skills;
    const previous = scope.index;
    const substring = this.#substringMode();

    // Cheap path. A tracked Mastra skills object: no change since the last full read (no
    // skills call needed). Otherwise: the known skills re-get as before and that full read is
    // recent enough (a negative age means the wall clock went back: check fully).
    const tracked = trackerTrusted(skills, scope.tracker);
    const sinceFullCheck = previous ? Date.now() - previous.fullCheckAt : NaN;
    if (
      previous &&
      previous.substring === substring &&
      (tracked
        ? previous.stamp === scope.tracker.changes
        : sinceFullCheck >= 0 &&
          sinceFullCheck < FULL_CHECK_INTERVAL_MS &&
          (await skillsUnchanged(skills, previous.entries)))
    ) {
      this.#stats.checks++;
      scope.checkedGeneration = generation;
      this.#stats.lastCheckMs = performance.now() - started;
      return;
    }

    const fullCheckAt = Date.now();
    // The change count this read reflects (at least): a change during the read re-checks again.
    const stamp = tracked ? scope.tracker.changes : null;
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
      // Lossless into Rust (lossless.js): names that differ only by a lone surrogate stay two
      // skills, and texts tokenize as the host's do.
      const names = encodeTexts(entries.map(e => (typeof e.name === 'string' ? e.name : String(e.name))));
      const descriptions = encodeTexts(entries.map(e => e.description));
      const instructions = encodeTexts(entries.map(e => e.instructions));
      const referenceTextsCrossing = encodeTexts(referenceTexts);
      const native = this.#model
        ? NativeSkillIndex.hybrid(names, descriptions, instructions, referenceCounts, referenceTextsCrossing, declaredDocuments, this.#model)
        : new NativeSkillIndex(
            names,
            descriptions,
            instructions,
            referenceCounts,
            referenceTextsCrossing,
            declaredDocuments,
            substring,
            this.#enhanced,
          );
      index = { substring, entries, metaMap: null, native, declaredDocuments, fullCheckAt, stamp };
      this.#stats.builds++;
      this.#stats.lastBuildMs = performance.now() - buildStart;
    } else {
      // Same content, but keep the new snapshots so the next cheap check compares with them.
      index.entries = entries;
      index.fullCheckAt = fullCheckAt;
      index.stamp = stamp;
    }
    // Descriptions come from list() like the reference's metaMap (a later duplicate wins).
    index.metaMap = new Map(list.map(s => [s.name, s]));
    scope.index = index;
    scope.checkedGeneration = generation;
    this.#stats.lastCheckMs = performance.now() - started;
  }

  /**
   * search_skills' ranking: `ranked` as `[{ name, description, score, skill }]`, one per skill,
   * best first, and the `index` it was ranked in.
   */
  async #rankedSkills(scope, query) {
    const index = await this.#ensureIndex(scope);
    const topK = toNumber(this.searchConfig.topK);
    const minScore = toNumber(this.searchConfig.minScore);
    // search.embedder: the query's vector, once the index's vectors are in.
    let vector;
    let over;
    if (this.#embedder) {
      await this.#embedder.prepare(index.native, () => index.entries.map(skillEmbedText));
      over = this.#embedder.overrideFor(index.native);
      vector = over ? await this.#embedder.queryVector(query) : undefined;
    }
    const hits = vector
      ? index.native.searchOver(encodeText(query), vector, over, topK, minScore)
      : index.native.search(encodeText(query), topK, minScore);
    // De-duplicate by skill (SKILL.md and reference hits of one skill), first hit wins.
    // Enhanced hits are already one per skill name; the pass is then a no-op.
    const seen = new Set();
    const ranked = [];
    for (let i = 0; i < hits.skills.length; i++) {
      const name = index.entries[hits.skills[i]].name;
      if (seen.has(name)) continue;
      seen.add(name);
      const meta = index.metaMap.get(name);
      const description = meta?.description ?? '';
      ranked.push({
        name,
        description: description.length > 150 ? description.slice(0, 147) + '...' : description,
        score: Math.round(hits.scores[i] * 100) / 100,
        skill: hits.skills[i],
      });
    }
    return { index, ranked };
  }

  async #search(scope, query) {
    const { ranked } = await this.#rankedSkills(scope, query);
    if (ranked.length === 0) {
      return { results: [], message: `No skills found matching "${query}". Try different keywords.` };
    }
    return {
      results: ranked.map(({ name, description, score }) => ({ name, description, score })),
      message: `Found ${ranked.length} skill(s). Use load_skill with the exact skill name to load its instructions.`,
    };
  }

  /** Logs a refresh failure through the registered logger, else console.warn. */
  #refreshFailed(error) {
    if (typeof this.warnRefreshFailed === 'function') {
      this.warnRefreshFailed(error);
    } else {
      (this.#logger ?? console).warn(REFRESH_FAILED, { error });
    }
  }

  /**
   * Step 0: `skills.maybeRefresh({ requestContext })`. Blocking: awaited (1.58/1.59 hosts
   * rethrow a failure like theirs; 1.60+ log it). Background: not awaited, a failure logged.
   * Either way the scope's index is re-checked at its next search after the refresh settles.
   */
  async #refresh(skills, requestContext, scope) {
    const blocking = this.#refreshRule === 'background-logged' ? this.blockingRefresh : this.#blocking;
    const rethrow = blocking && this.#refreshRule === 'blocking-throws';
    // The refresh may change skills: re-check lazily at the next search, now and once settled.
    scope.generation++;
    let pending;
    try {
      pending = skills.maybeRefresh({ requestContext });
    } catch (error) {
      if (rethrow) throw error;
      this.#refreshFailed(error);
      return;
    }
    if (pending == null) return;
    const settled = Promise.resolve(pending).then(
      () => {
        scope.generation++;
      },
      error => {
        scope.generation++;
        if (rethrow) throw error;
        this.#refreshFailed(error);
      },
    );
    if (blocking) await settled;
  }

  /**
   * The thread's loaded skills as this scope sees them, in load order: [key, instructions].
   *
   * A thread keeps, per loaded key, one variant per distinct instructions text, each tagged
   * with the skills views (scopes) it belongs to. A scope sees only variants tagged for it.
   * A key loaded in another view (another tenant on the same thread id, or a new view of the
   * same tenant, e.g. a filesystem resolver returning a fresh filesystem per request) is
   * tagged for this scope only when this scope's own `get(key)` returns the very same
   * instructions, i.e. content this request may read anyway. Nothing else crosses scopes.
   */
  async #loadedIn(threadState, skills, scopeId) {
    const unconfirmed = [];
    for (const [key, variants] of threadState.skills) {
      if (!variantIn(variants, scopeId)) unconfirmed.push(key);
    }
    if (unconfirmed.length > 0) {
      await Promise.all(
        unconfirmed.map(async key => {
          const skill = await getSkill(skills, key);
          const variants = threadState.skills.get(key);
          if (!skill || !variants || variantIn(variants, scopeId)) return;
          const same = variants.find(v => v.instructions === skill.instructions);
          if (same) tagScope(same, scopeId);
        }),
      );
    }
    const loaded = [];
    for (const [key, variants] of threadState.skills) {
      const variant = variantIn(variants, scopeId);
      if (variant) loaded.push([key, variant.instructions]);
    }
    return loaded;
  }

  /**
   * `storage: <store>`: the thread's loaded names read back from the store (nothing on a
   * failure, warned once per outage), each re-checked with this scope's own get(): a name
   * the scope cannot get is ignored (a store is not a trust boundary, and a tenant sees only
   * skills it may read), and the text shown is what get() returns now.
   */
  async #loadedFromStore(key, skills) {
    // Names cross to the store lossless too (a lone surrogate would not survive UTF-8).
    const names = decodeTexts((await this.#shared.load(key)).names);
    const found = await Promise.all(names.map(name => getSkill(skills, name)));
    const loaded = [];
    for (let i = 0; i < names.length; i++) {
      if (found[i]) loaded.push([names[i], found[i].instructions]);
    }
    return loaded;
  }

  /**
   * Searches `query` as search_skills does and loads, as load_skill would, the hits, best first,
   * whose confidence reaches `minConfidence` (at most `max`, counting those already loaded), in
   * this scope. Appends `[name, instructions]` to `loaded`; returns the names it loaded.
   */
  async #preloadSkills(scope, skills, scopeId, threadId, threadState, storeKey, loaded, query) {
    const { max, minConfidence, onPreload } = this.#preload;
    if (!query.trim()) return [];
    const { index, ranked: results } = await this.#rankedSkills(scope, query);
    // 'hybrid': what each hit rests on (lexical score, the model's cosine), as for tools.
    let evidence;
    if (this.#mode === 'hybrid' && results.length > 0) {
      const flat = index.native.evidence(encodeText(query), Uint32Array.from(results.map((r) => r.skill)));
      evidence = results.map((_, i) => ({ lexical: flat[2 * i], cosine: flat[2 * i + 1] }));
    }
    const confidences = confidencesOf(this.#mode, results, query, index.metaMap.size, evidence);
    const already = new Set(loaded.map(([name]) => name));
    const chosen = [];
    for (let i = 0; i < results.length && i < max; i++) {
      if (confidences[i] < minConfidence) break;
      if (!already.has(results[i].name)) chosen.push({ name: results[i].name, confidence: Math.round(confidences[i] * 1000) / 1000 });
    }
    const done = [];
    for (const { name, confidence } of chosen) {
      const skill = await skills.get(name);
      if (!skill) continue;
      if (this.#shared) {
        if (!(await this.#shared.add(storeKey, encodeTexts([name]))).ok) continue;
      } else {
        rememberVariant(threadState, name, skill.instructions, scopeId);
      }
      loaded.push([name, skill.instructions]);
      done.push({ name, confidence });
    }
    if (done.length > 0) notifyPreload(onPreload, { threadId, query, skills: done }, this.logger ?? this.#logger, 'SkillSearchProcessor');
    return done.map((d) => d.name);
  }

  async processInputStep(args) {
    const { tools, messageList } = args;
    // Difference 6 on 1.58/1.59 (the host's own rule on 1.60+): the memory thread before 'default'.
    const threadId = resolveThreadIdFor(args.requestContext, this.#memoryThread) || 'default';
    const shared = this.#shared;
    const storeKey = shared ? sharedThreadKey(threadId, 'SkillSearchProcessor') : undefined;
    const threadState = shared ? undefined : this.#getThreadState(threadId);
    const configuredSkills = this.workspace.skills;

    if (!configuredSkills) {
      return { tools };
    }

    // Request-scoped skills wherever the workspace offers them (every host: tenant isolation).
    const skills =
      typeof configuredSkills.getScoped === 'function'
        ? await configuredSkills.getScoped({ requestContext: args.requestContext })
        : configuredSkills;
    if (!skills || typeof skills !== 'object') {
      throw new TypeError(
        `SkillSearchProcessor: workspace.skills.getScoped() must resolve to the request's skills; received ${describeValue(skills)}.`,
      );
    }
    const scope = this.#scopeFor(skills);
    const scopeId = this.#scopeIdOf(skills);

    if (args.stepNumber === 0) {
      await this.#refresh(skills, args.requestContext, scope);
    }

    // This thread's loaded skills that belong to this scope (usually all of them, no call).
    const loaded = shared
      ? await this.#loadedFromStore(storeKey, skills)
      : await this.#loadedIn(threadState, skills, scopeId);
    // With a store: the names loaded as of this step (extended by this step's loads).
    const sharedLoaded = shared ? new Set(loaded.map(([name]) => name)) : undefined;

    messageList.addSystem(INSTRUCTION);

    const { createTool, z } = hostModulesOf(this);
    const schemas = schemasFor(z);
    const searchSkillTool = createTool({
      id: 'search_skills',
      description: SEARCH_DESCRIPTION,
      inputSchema: schemas.searchInput,
      outputSchema: schemas.searchOutput,
      execute: async ({ query }) => this.#search(scope, query),
    });

    const loadSkillTool = createTool({
      id: 'load_skill',
      description: LOAD_DESCRIPTION,
      inputSchema: schemas.loadInput,
      outputSchema: schemas.loadOutput,
      execute: async ({ skillName }) => {
        const alreadyLoaded = { success: true, message: `Skill "${skillName}" is already loaded.`, skillName };
        if (shared ? sharedLoaded.has(skillName) : variantIn(threadState.skills.get(skillName), scopeId)) {
          return alreadyLoaded;
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
        if (shared) {
          const written = await shared.add(storeKey, encodeTexts([skillName]));
          if (!written.ok) {
            return {
              success: false,
              message: `Skill "${skillName}" could not be loaded right now (loaded-skill state is unavailable). Try again.`,
            };
          }
          sharedLoaded.add(skillName);
          return {
            success: true,
            message: `Skill "${skillName}" loaded. Its instructions are now available as context.`,
            skillName,
          };
        }
        // Loaded in another scope: the same text is loaded here too; other text is this
        // scope's own variant (another tenant's is never shown or reported here).
        if (!rememberVariant(threadState, skillName, skill.instructions, scopeId)) return alreadyLoaded;
        return {
          success: true,
          message: `Skill "${skillName}" loaded. Its instructions are now available as context.`,
          skillName,
        };
      },
    });

    // Preload (ours, opt-in): the first step of each user message loads, as load_skill would,
    // the skill its text finds with confidence; its instructions are in this very step.
    if (this.#preload && args.stepNumber === 0) {
      const preloaded = await this.#preloadSkills(scope, skills, scopeId, threadId, threadState, storeKey, loaded, lastUserText(args.messages));
      for (const name of preloaded) sharedLoaded?.add(name);
    }

    for (const [skillName, instructions] of loaded) {
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

/** A guarded store call's outcome as `{ ok, error? }`. */
async function settledOf(pending) {
  const result = await pending;
  return result.ok ? { ok: true } : { ok: false, error: result.error };
}

module.exports = { SkillSearchProcessor };
