'use strict';
// Thread identity for per-conversation state, shared by the processors.

const THREAD_ID_KEY = 'mastra__threadId';
const MEMORY_KEY = 'MastraMemory';

/**
 * The request's thread id: `mastra__threadId`, else the Mastra memory thread
 * (`MastraMemory.thread.id`), else undefined. The memory fallback is a deliberate
 * difference from @mastra/core 1.59.0, which shares one 'default' state across every
 * conversation that lacks `mastra__threadId`.
 */
function resolveThreadId(requestContext) {
  if (!requestContext || typeof requestContext.get !== 'function') return undefined;
  const explicit = requestContext.get(THREAD_ID_KEY);
  if (explicit) return explicit;
  const memory = requestContext.get(MEMORY_KEY);
  const memoryThreadId = memory && memory.thread && memory.thread.id;
  return memoryThreadId || undefined;
}

// Thread keys. The host keeps loaded state in a JS `Map` keyed by the thread id itself, so two
// ids share state exactly when they are SameValueZero: strings by their UTF-16 code units (lone
// surrogates included), numbers by value (never equal to a string), objects and symbols by
// identity. Our state lives in Rust maps keyed by UTF-8 strings (a lone surrogate would become
// U+FFFD) or in shared stores keyed by strings, so every id is first turned into a key string by
// an encoding that is injective over the ids it accepts:
//   - a well-formed string not starting with U+0000 is its own key (ordinary ids, and every Redis
//     key written before this encoding, are unchanged);
//   - every other id gets a U+0000 tag no such string has: '\0s' + the string with each U+0000
//     and lone surrogate written as U+0000 + 4 hex digits (an escaped string), '\0n' + String(n)
//     for a number (String round-trips every double; -0 and 0 are one key, as in a Map), '\0i'
//     for a bigint, '\0b' for a boolean, and in process only '\0o<n>' for an object, function or
//     symbol (a number drawn once per value and kept in a WeakMap: identity, as in a Map).
// Shared stores see other processes, where an object has no identity: an id that is an object,
// function or symbol is a TypeError naming mastra__threadId. A shared key is a well-formed
// string as well, so a custom store may hand it to anything that takes Unicode text.

const ESCAPED_UNITS = /[\u0000\uD800-\uDFFF]/g;
let nextIdentity = 0;
const identities = new WeakMap();
/** Registered symbols (`Symbol.for`) cannot be WeakMap keys; they are few and never collected. */
const registeredSymbols = new Map();

function hex4(code) {
  return code.toString(16).toUpperCase().padStart(4, '0');
}

function escapedString(text) {
  // Pairs are kept (they are well-formed); only lone surrogates and U+0000 are written out.
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (code === 0 || (code >= 0xd800 && code <= 0xdfff)) {
      out += text.slice(last, i) + '\u0000' + hex4(code);
      last = i + 1;
    }
  }
  return '\u0000s' + out + text.slice(last);
}

function stringKey(text) {
  return text.charCodeAt(0) !== 0 && text.isWellFormed() ? text : escapedString(text);
}

function identityKey(value) {
  let id;
  if (typeof value === 'symbol' && Symbol.keyFor(value) !== undefined) {
    id = registeredSymbols.get(value);
    if (id === undefined) registeredSymbols.set(value, (id = nextIdentity++));
  } else {
    id = identities.get(value);
    if (id === undefined) identities.set(value, (id = nextIdentity++));
  }
  return `\u0000o${id}`;
}

function primitiveKey(threadId) {
  switch (typeof threadId) {
    case 'string':
      return stringKey(threadId);
    case 'number':
      return `\u0000n${String(threadId)}`;
    case 'bigint':
      return `\u0000i${threadId.toString()}`;
    case 'boolean':
      return `\u0000b${threadId}`;
    default:
      return undefined;
  }
}

/**
 * Key of a thread id in this process's own maps (in-memory and context state): two ids get one
 * key exactly when a JS Map would take them for one key.
 */
function threadKey(threadId) {
  return primitiveKey(threadId) ?? identityKey(threadId);
}

/**
 * Key of a thread id in a shared store (redisStore, memoryStore, custom stores): injective over
 * strings, numbers, bigints and booleans; any other id is a TypeError, since it has no identity
 * another process could share.
 */
function sharedThreadKey(threadId, who = 'mastra-native-processors') {
  const key = primitiveKey(threadId);
  if (key !== undefined) return key;
  const what = threadId === null ? 'null' : typeof threadId === 'symbol' ? 'a symbol' : typeof threadId === 'function' ? 'a function' : 'an object';
  throw new TypeError(
    `${who}: the request context's mastra__threadId (or MastraMemory thread id) must be a string or a number with a shared state store; received ${what}, which has no identity another process could share.`,
  );
}

/**
 * The request's thread id as hosts 1.60+ read it: `mastra__threadId`, else the memory thread
 * through the host's parseMemoryRequestContext rules, which throw on a malformed `MastraMemory`
 * entry (same messages). `rule` is the host's capability: 'parsed' (1.60+) or 'lenient'
 * (1.58/1.59, where the memory fallback is our deliberate difference and ignores bad entries).
 */
function resolveThreadIdFor(requestContext, rule) {
  if (rule !== 'parsed') return resolveThreadId(requestContext);
  if (!requestContext || typeof requestContext.get !== 'function') return undefined;
  const explicit = requestContext.get(THREAD_ID_KEY);
  if (explicit) return explicit;
  const memory = requestContext.get(MEMORY_KEY);
  if (!memory) return undefined;
  if (typeof memory !== 'object') throw new Error(`Invalid MemoryRequestContext: expected object, got ${typeof memory}`);
  const thread = memory.thread;
  if (thread !== undefined) {
    if (typeof thread !== 'object' || thread === null) {
      throw new Error(`Invalid MemoryRequestContext.thread: expected object, got ${typeof thread}`);
    }
    if (typeof thread.id !== 'string') {
      throw new Error(`Invalid MemoryRequestContext.thread.id: expected string, got ${typeof thread.id}`);
    }
  }
  if (memory.resourceId !== undefined && typeof memory.resourceId !== 'string') {
    throw new Error(`Invalid MemoryRequestContext.resourceId: expected string, got ${typeof memory.resourceId}`);
  }
  return thread?.id || undefined;
}

module.exports = { resolveThreadId, resolveThreadIdFor, threadKey, sharedThreadKey, THREAD_ID_KEY, MEMORY_KEY };
