'use strict';
// What learning keeps of a request instead of its text: hashed terms. Latin-script and other
// space-separated words become one term each (lowercased, NFKC); runs of Han, kana and Hangul,
// which are not reliably space-separated, become their character bigrams (and a lone character
// itself), so "幫我開個PR" and "開個PR給我" share terms. Hashes are 32-bit FNV-1a: a request
// cannot be printed back from them, though a short one can be guessed by hashing candidates
// (docs/learning.md says so).

const WORD = /[\p{L}\p{N}]+/gu;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
/** Characters of a request read: a pasted document says nothing more about the tool it needs. */
const MAX_CHARS = 2000;

function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** The terms of `text` as strings (tests and diagnostics). */
function termsOf(text) {
  const out = [];
  const head = String(text).slice(0, MAX_CHARS).normalize('NFKC').toLowerCase();
  for (const [word] of head.matchAll(WORD)) {
    let last = 0;
    for (const match of word.matchAll(CJK_RUN)) {
      if (match.index > last) out.push(word.slice(last, match.index));
      const run = match[0];
      if (run.length === 1) out.push(run);
      for (let i = 0; i + 1 < run.length; i++) out.push(run.slice(i, i + 2));
      last = match.index + run.length;
    }
    if (last < word.length) out.push(word.slice(last));
  }
  return out;
}

/**
 * The hashed term counts of `text`: `{ terms: Uint32Array, counts: Uint16Array }`, terms sorted
 * and distinct, or undefined when the text has no word at all.
 */
function featuresOf(text) {
  const counts = new Map();
  for (const term of termsOf(text)) {
    const hash = fnv1a(term);
    counts.set(hash, (counts.get(hash) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  const terms = Uint32Array.from(counts.keys()).sort();
  return { terms, counts: Uint16Array.from(terms, (t) => Math.min(65535, counts.get(t))) };
}

/** A stable key of a feature set (for merging repeats of one request). */
function featureKey(features) {
  let key = '';
  for (let i = 0; i < features.terms.length; i++) key += `${features.terms[i].toString(36)}:${features.counts[i]},`;
  return key;
}

module.exports = { featuresOf, featureKey, termsOf };
