'use strict';
// The payload of a learned example in a shared learning store: the request's hashed terms and
// their counts (features.js), as one opaque base64 string. Stores keep it as given; only this
// codec reads it. Layout (little-endian): u32 term count n, n u32 terms, n u16 counts.
// (A placeholder the Rust index's codec replaces; the record format around it stays.)

const MAX_TERMS = 65_535;

/** `{ terms: Uint32Array, counts: Uint16Array }` -> base64. */
function encodePayload(features) {
  const n = features.terms.length;
  const bytes = Buffer.alloc(4 + 6 * n);
  bytes.writeUInt32LE(n, 0);
  for (let i = 0; i < n; i++) bytes.writeUInt32LE(features.terms[i], 4 + 4 * i);
  for (let i = 0; i < n; i++) bytes.writeUInt16LE(features.counts[i], 4 + 4 * n + 2 * i);
  return bytes.toString('base64');
}

/**
 * base64 -> `{ terms, counts }`, or undefined when the payload is not one this codec wrote
 * (a store is not a trust boundary: a damaged or foreign record is skipped, never applied).
 * Terms come back sorted and distinct, counts at least 1, as featuresOf() makes them.
 */
function decodePayload(payload) {
  if (typeof payload !== 'string' || payload.length === 0) return undefined;
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.length < 4) return undefined;
  const n = bytes.readUInt32LE(0);
  if (n === 0 || n > MAX_TERMS || bytes.length !== 4 + 6 * n) return undefined;
  const terms = new Uint32Array(n);
  const counts = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    terms[i] = bytes.readUInt32LE(4 + 4 * i);
    counts[i] = bytes.readUInt16LE(4 + 4 * n + 2 * i);
    if (counts[i] === 0 || (i > 0 && terms[i] <= terms[i - 1])) return undefined;
  }
  return { terms, counts };
}

module.exports = { encodePayload, decodePayload };
