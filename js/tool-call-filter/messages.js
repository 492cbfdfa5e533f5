'use strict';
// The 'messages' stage (1.58/1.59 hosts): processInput/processInputStep return the filtered
// MessageList messages, built from the core's decisions (reusing the original objects wherever
// the reference does).

const { nativeToolCallFilterDecide } = require('../native.js');
const { acquireScratch, releaseScratch } = require('./scratch.js');
const { Encoder, excludeMode, readStepState } = require('./encode.js');
const { AnswerReader } = require('./answer.js');
const {
  MODE_NAMES,
  MODE_NOTHING,
  MESSAGE_STRIDE,
  ACTION_PASS,
  ACTION_REBUILD,
  PART_KEEP,
  PART_TEXT,
  INVOCATION_KEEP,
  HEADER_MODE,
  HEADER_PRESERVE_MODEL_OUTPUT,
  HEADER_STEP_ENABLED,
  HEADER_MESSAGE_COUNT,
  HEADER_PART_COUNT,
  HEADER_INVOCATION_COUNT,
  HEADER_ID_COUNT,
  HEADER_NAME_COUNT,
  HEADER_NODE_COUNT,
  HEADER_STEP_LENGTH,
  HEADER_EXCLUDE_COUNT,
  HEADER_EXCLUDE_NAMES,
} = require('./layout.js');

// --- profiling hook (used by bench/tool-call-filter.mjs) --------------------------------------
const profile = { enabled: false, encodeMs: 0, nativeMs: 0, buildMs: 0, calls: 0 };
const now = () => performance.now();

/**
 * The whole filter: `step` is null in processInput, else `{ state, responseMessages, window }`.
 * Returns the filtered messages (the input array itself when nothing can be excluded).
 */
function runFilter(filter, messages, step) {
  const exclude = filter.exclude;
  const mode = excludeMode(exclude);
  if (mode === MODE_NOTHING && step === null) return messages;

  const scratch = acquireScratch();
  try {
    const started = profile.enabled ? now() : 0;
    const preserveModelOutput = Boolean(filter.preserveModelOutput);
    const encoder = new Encoder(scratch, mode === MODE_NAMES || step !== null, mode === MODE_NAMES, preserveModelOutput);
    const excludeCount = mode === MODE_NAMES ? exclude.length : 0;
    encoder.encodeExclude(exclude, excludeCount, HEADER_EXCLUDE_NAMES);

    let stepWire = null;
    let previousGroups = null;
    if (step !== null) {
      const { seen, groups } = readStepState(step.state);
      previousGroups = groups;
      stepWire = encoder.encodeStep(seen, previousGroups, step.responseMessages);
    }
    if (mode !== MODE_NOTHING) encoder.encodeMessages(messages);

    const messageCount = encoder.messageCount;
    const partCount = encoder.partCount;
    const invocationCount = encoder.invocationCount;
    const header = scratch.header;
    header[HEADER_MODE] = mode;
    header[HEADER_PRESERVE_MODEL_OUTPUT] = preserveModelOutput ? 1 : 0;
    header[HEADER_STEP_ENABLED] = step !== null ? 1 : 0;
    header[HEADER_MESSAGE_COUNT] = messageCount;
    header[HEADER_PART_COUNT] = partCount;
    header[HEADER_INVOCATION_COUNT] = invocationCount;
    header[HEADER_ID_COUNT] = encoder.idValues.length;
    header[HEADER_NAME_COUNT] = encoder.nameIndex.size;
    header[HEADER_NODE_COUNT] = encoder.nodeCount;
    header[HEADER_STEP_LENGTH] = stepWire === null ? 0 : stepWire.length;
    header[HEADER_EXCLUDE_COUNT] = excludeCount;

    scratch.reserve('actions', messageCount + partCount + invocationCount);
    // Upper bound: new ids + seen ids (+2 counts), and per text part a count plus one segment per node.
    scratch.reserve(
      'ints',
      (stepWire === null ? 0 : 2 + stepWire.seenCount + 2 * stepWire.responseCount) + partCount + encoder.nodeCount,
    );

    const encoded = profile.enabled ? now() : 0;
    let written;
    // Decide; if a plan uses an array JSON that turns out not to exist, mark it and decide again.
    do {
      written = nativeToolCallFilterDecide(
        header,
        step === null ? 0 : step.window,
        scratch.messages,
        scratch.parts,
        scratch.invocations,
        scratch.idTruthy,
        scratch.tape,
        scratch.step,
        scratch.actions,
        scratch.ints,
      );
    } while (encoder.nodeCount > 0 && !resolveLazyJson(scratch.ints, encoder, step !== null, written));
    const decided = profile.enabled ? now() : 0;

    const answer = new AnswerReader(scratch.ints, 0, encoder.idValues, encoder.segments);
    if (step !== null) answer.updateStepState(step.state, previousGroups);

    const result = mode === MODE_NOTHING ? messages : buildMessages(messages, scratch, encoder, answer);
    if (profile.enabled) {
      const built = now();
      profile.encodeMs += encoded - started;
      profile.nativeMs += decided - encoded;
      profile.buildMs += built - decided;
      profile.calls++;
    }
    return result;
  } finally {
    releaseScratch(scratch);
  }
}

/**
 * Replaces lazy array-JSON refs in the plans by real segments. Returns false (after marking the
 * failed arrays as "no JSON" in the tape) when some JSON.stringify failed and we must decide again.
 */
function resolveLazyJson(ints, encoder, hasStep, written) {
  let cursor = 0;
  if (hasStep) {
    cursor += 1 + ints[cursor];
    cursor += 1 + ints[cursor];
  }
  let resolved = true;
  while (cursor < written) {
    const segmentCount = ints[cursor++];
    if (!encoder.resolveLazySegments(ints, cursor, segmentCount)) resolved = false;
    cursor += segmentCount;
  }
  return resolved;
}

function buildMessages(messages, scratch, encoder, answer) {
  const count = encoder.messageCount;
  const records = scratch.messages;
  const actions = scratch.actions;
  const partBase = count;
  const invocationBase = count + encoder.partCount;
  const output = [];
  let partIndex = 0;
  let invocationIndex = 0;
  for (let i = 0; i < count; i++) {
    const at = i * MESSAGE_STRIDE;
    const partCount = records[at + 2];
    const invocationCount = records[at + 3];
    const action = actions[i];
    if (action === ACTION_PASS) {
      output.push(messages[i]);
    } else if (action === ACTION_REBUILD) {
      const message = messages[i];
      const parts = message.content.parts;
      const kept = [];
      for (let j = 0; j < partCount; j++) {
        const partAction = actions[partBase + partIndex + j];
        if (partAction === PART_KEEP) {
          kept.push(parts[j]);
        } else if (partAction === PART_TEXT) {
          kept.push(answer.textPart(parts[j].toolInvocation.toolName));
        }
      }
      const { toolInvocations, ...content } = message.content;
      content.parts = kept;
      if (Array.isArray(toolInvocations)) {
        const keepBase = invocationBase + invocationIndex;
        const survivors = toolInvocations.filter((_, k) => actions[keepBase + k] === INVOCATION_KEEP);
        if (survivors.length > 0) content.toolInvocations = survivors;
      }
      output.push({ ...message, content });
    }
    partIndex += partCount;
    invocationIndex += invocationCount;
  }
  return output;
}

module.exports = { runFilter, profile };
