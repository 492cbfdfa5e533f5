'use strict';
// What a thread persisted, read back for the resume paths of the search processors. An approval
// (or a tool's suspension) can be answered after the run's in-process state is gone: the durable
// run registry entry expired, or the process restarted. The host then rebuilds the run's tools
// through getLoadedToolsForRequestContext({ requestContext, tools }) with no step messages, and
// the conversation that loaded the tools is only in storage. This module reads it from the
// storage of the Mastra instance the processor was registered with (the one an agent's Memory
// normally shares).

/** How many of the thread's latest messages are read (the suspended run is at the end). */
const MAX_PERSISTED_MESSAGES = 200;

/** The Mastra storage's memory domain, or undefined when the instance has none. */
async function memoryDomainOf(mastra) {
  const storage = typeof mastra?.getStorage === 'function' ? mastra.getStorage() : undefined;
  if (!storage) return undefined;
  if (typeof storage.getStore === 'function') {
    const domain = await storage.getStore('memory');
    if (domain && typeof domain.listMessages === 'function') return domain;
  }
  const legacy = storage.stores?.memory;
  return legacy && typeof legacy.listMessages === 'function' ? legacy : undefined;
}

/** Whether an assistant message records a tool call that waits for approval or a resume. */
function waitsForResume(message) {
  const metadata = message?.content?.metadata;
  if (!metadata || typeof metadata !== 'object') return false;
  for (const key of ['pendingToolApprovals', 'suspendedTools']) {
    const entries = metadata[key];
    if (entries && typeof entries === 'object' && Object.keys(entries).length > 0) return true;
  }
  return false;
}

/**
 * The thread's latest persisted messages, oldest first, when one of them waits for an approval
 * or a resume (a suspended run of this thread); `{ messages: undefined, reason }` otherwise.
 * `reason` is 'no-storage' when nothing could be read; it never throws.
 */
async function suspendedThreadMessages(mastra, threadId) {
  if (typeof threadId !== 'string' || threadId === '') return { messages: undefined, reason: 'no-thread' };
  let domain;
  try {
    domain = await memoryDomainOf(mastra);
  } catch {
    domain = undefined;
  }
  if (!domain) return { messages: undefined, reason: 'no-storage' };
  let listed;
  try {
    listed = await domain.listMessages({
      threadId,
      perPage: MAX_PERSISTED_MESSAGES,
      page: 0,
      orderBy: { field: 'createdAt', direction: 'DESC' },
    });
  } catch {
    return { messages: undefined, reason: 'no-storage' };
  }
  const messages = Array.isArray(listed?.messages) ? [...listed.messages] : [];
  messages.sort((a, b) => new Date(a?.createdAt ?? 0).getTime() - new Date(b?.createdAt ?? 0).getTime());
  if (!messages.some(waitsForResume)) return { messages: undefined, reason: 'not-suspended' };
  return { messages, reason: undefined };
}

module.exports = { suspendedThreadMessages, waitsForResume, MAX_PERSISTED_MESSAGES };
