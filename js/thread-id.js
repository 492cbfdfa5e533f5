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

/**
 * Key for native per-thread maps. Strings are used as they are; other values (the
 * reference keys a JS Map by them) get a prefix so `42` and `'42'` stay distinct.
 */
function threadKey(threadId) {
  if (typeof threadId === 'string') return threadId;
  return `\u0000${typeof threadId}:${String(threadId)}`;
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

module.exports = { resolveThreadId, resolveThreadIdFor, threadKey, THREAD_ID_KEY, MEMORY_KEY };
