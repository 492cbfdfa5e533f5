'use strict';
// SkillSearchProcessor's catalog: the skills read from a skills object (list(), get() per
// skill, reference files), the cheap re-check that they are unchanged, the native index
// built from them, and load_skill's "Did you mean" names.

const { NativeSkillIndex, nativeSkillSuggestions } = require('../native.js');
const { sameStrings } = require('../util.js');
const { encodeText, encodeTexts } = require('../lossless.js');

/**
 * Untracked skills objects (see the change tracking in tracker.js): longest time between two full
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
 * The native index of `entries` (as readSkills reads them): 'hybrid' with the static
 * embedding `model`, else BM25 (`enhanced`: one BM25F document per skill), or substring
 * matching. Also returns how many documents the skills declare (SKILL.md and references).
 */
function buildSkillIndex(entries, { substring, enhanced, model }) {
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
  const native = model
    ? NativeSkillIndex.hybrid(names, descriptions, instructions, referenceCounts, referenceTextsCrossing, declaredDocuments, model)
    : new NativeSkillIndex(
        names,
        descriptions,
        instructions,
        referenceCounts,
        referenceTextsCrossing,
        declaredDocuments,
        substring,
        enhanced,
      );
  return { native, declaredDocuments };
}

/** What a user's embedder embeds for a skill: its name, description and the start of its body. */
function skillEmbedText(entry) {
  const text = `${entry.name}: ${entry.description ?? ''}\n\n${entry.instructions ?? ''}`;
  return text.length > 2000 ? text.slice(0, 2000) : text;
}

module.exports = {
  FULL_CHECK_INTERVAL_MS,
  buildSkillIndex,
  compatibleSuggestions,
  enhancedSuggestions,
  entriesEqual,
  getSkill,
  readSkills,
  skillEmbedText,
  skillsUnchanged,
};
