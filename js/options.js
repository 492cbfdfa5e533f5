'use strict';
// Option checks shared by the three processors: the options object itself, required options,
// and unknown keys (a warning with a "did you mean", never an error: drop-in code that passes
// extra keys must keep working).

const { describeValue } = require('./util.js');

/** Unknown keys already warned about, per processor, so a processor built per request warns once. */
const warned = new Set();

/** Edit distance (insert, delete, substitute, swap two neighbours), case-insensitive. */
function editDistance(a, b) {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known key closest to `key` (within 2 edits, or 1 for short keys), if any. */
function closestKey(key, known) {
  const limit = key.length <= 4 ? 1 : 2;
  let best;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const d = editDistance(key, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Checks a processor's options object.
 *
 * `schema`: { name, keys: string[], nested?: { [key]: string[] }, required?: { [key]: expected },
 * optional?: boolean (the whole object may be omitted), warn?: (message) => void }.
 * Throws a TypeError for a missing/non-object options object or a missing required option;
 * warns once per unknown key.
 */
function checkOptions(options, schema) {
  const { name } = schema;
  if (options === undefined || options === null) {
    if (schema.optional) return;
    const required = Object.keys(schema.required ?? {});
    throw new TypeError(
      `${name}: options must be an object${required.length ? ` with ${required.map((k) => `\`${k}\``).join(', ')}` : ''}; received ${describeValue(options)}.`,
    );
  }
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${name}: options must be an object; received ${describeValue(options)}.`);
  }
  for (const [key, expected] of Object.entries(schema.required ?? {})) {
    if (options[key] === undefined || options[key] === null) {
      throw new TypeError(`${name}: options.${key} is required: ${expected}; received ${describeValue(options[key])}.`);
    }
  }
  const unknown = [];
  for (const key of Object.keys(options)) {
    if (!schema.keys.includes(key)) unknown.push([key, schema.keys]);
  }
  for (const [parent, nestedKeys] of Object.entries(schema.nested ?? {})) {
    const value = options[parent];
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    for (const key of Object.keys(value)) {
      if (!nestedKeys.includes(key)) unknown.push([`${parent}.${key}`, nestedKeys.map((k) => `${parent}.${k}`)]);
    }
  }
  const warn = schema.warn ?? ((message) => console.warn(message));
  for (const [key, known] of unknown) {
    const id = `${name}\u0000${key}`;
    if (warned.has(id)) continue;
    warned.add(id);
    const suggestion = closestKey(key, known);
    warn(
      `${name}: unknown option \`${key}\` is ignored.` +
        (suggestion ? ` Did you mean \`${suggestion}\`?` : ` Known options: ${known.map((k) => `\`${k}\``).join(', ')}.`),
    );
  }
}

module.exports = { checkOptions, closestKey };
