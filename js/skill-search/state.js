'use strict';
// SkillSearchProcessor's loaded-skill state. In memory (the host's `threadLoadedSkills` map):
// per thread, per loaded key, one variant per distinct instructions text, each tagged with the
// skills views (scopes) it belongs to. With a store (loaded-state.js): names only, re-checked
// with the scope's own get() whenever read.

const { getSkill } = require('./catalog.js');

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

function tagScope(variant, scopeId) {
  variant.scopes.add(scopeId);
  if (variant.scopes.size > MAX_SCOPES_PER_VARIANT) variant.scopes.delete(variant.scopes.values().next().value);
}

/** The in-memory state of a thread (created on first use), marked accessed now. */
function threadStateOf(threadLoadedSkills, threadId) {
  let state = threadLoadedSkills.get(threadId);
  if (!state) {
    // skills: loaded key -> variants [{ instructions, scopes }] (see loadedIn).
    state = { skills: new Map(), lastAccessed: Date.now() };
    threadLoadedSkills.set(threadId, state);
  }
  state.lastAccessed = Date.now();
  return state;
}

/**
 * The thread's loaded skills as this scope sees them, in load order: [key, instructions].
 *
 * A scope sees only variants tagged for it. A key loaded in another view (another tenant on
 * the same thread id, or a new view of the same tenant, e.g. a filesystem resolver returning
 * a fresh filesystem per request) is tagged for this scope only when this scope's own
 * `get(key)` returns the very same instructions, i.e. content this request may read anyway.
 * Nothing else crosses scopes.
 */
async function loadedIn(threadState, skills, scopeId) {
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
async function loadedFromStore(shared, key, skills) {
  const names = await shared.namesAt(key);
  const found = await Promise.all(names.map(name => getSkill(skills, name)));
  const loaded = [];
  for (let i = 0; i < names.length; i++) {
    if (found[i]) loaded.push([names[i], found[i].instructions]);
  }
  return loaded;
}

/** Drops the threads idle longer than `ttl` ms; returns how many. */
function dropStaleThreads(threadLoadedSkills, now, ttl) {
  let cleaned = 0;
  for (const [threadId, state] of threadLoadedSkills.entries()) {
    if (now - state.lastAccessed > ttl) {
      threadLoadedSkills.delete(threadId);
      cleaned++;
    }
  }
  return cleaned;
}

/** `{ threadCount, oldestAccessTime }` of the in-memory state. */
function threadStatsOf(threadLoadedSkills) {
  if (threadLoadedSkills.size === 0) return { threadCount: 0, oldestAccessTime: null };
  let oldest = Date.now();
  for (const state of threadLoadedSkills.values()) {
    if (state.lastAccessed < oldest) oldest = state.lastAccessed;
  }
  return { threadCount: threadLoadedSkills.size, oldestAccessTime: oldest };
}

module.exports = {
  dropStaleThreads,
  loadedFromStore,
  loadedIn,
  rememberVariant,
  threadStateOf,
  threadStatsOf,
  variantIn,
};
