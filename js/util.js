'use strict';
// Small helpers shared by the processors' JS layers.

/** A short description of a value for option errors: "the number -1", "an array", "null". */
function describeValue(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return typeof value;
}

/** Whether two string arrays hold the same values (a missing array equals only itself). */
function sameStrings(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether a value is a promise-like (a user's filter may answer with one). */
function isThenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';
}

/** A description as search results show it: at most 150 characters, cut with '...'. */
function shortDescription(description) {
  return description.length > 150 ? description.slice(0, 147) + '...' : description;
}

/** A guarded store call's outcome as `{ ok, error? }`. */
async function settledOf(pending) {
  const result = await pending;
  return result.ok ? { ok: true } : { ok: false, error: result.error };
}

/**
 * A cache key for `text` that stays small: the text itself up to `maxChars` characters, else its
 * SHA-256 (so a cache of long messages holds 44 characters per key, not the messages).
 */
function textKey(text, maxChars) {
  const value = String(text);
  if (value.length <= maxChars) return `q:${value}`;
  return `h:${require('node:crypto').createHash('sha256').update(value).digest('base64url')}`;
}

module.exports = { describeValue, isThenable, sameStrings, settledOf, shortDescription, textKey };
