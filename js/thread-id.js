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

module.exports = { resolveThreadId, threadKey, THREAD_ID_KEY, MEMORY_KEY };
