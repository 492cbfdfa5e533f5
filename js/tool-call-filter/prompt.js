'use strict';
// The 'prompt' stage (1.60+, and 1.58/1.59 with `stage: 'prompt'`): processLLMRequest trims only
// the prompt sent to the model, built from the core's decisions; the MessageList and memory keep
// everything.

const { nativeToolCallFilterDecidePrompt } = require('../native.js');
const { acquireScratch, releaseScratch } = require('./scratch.js');
const { Encoder, excludeMode, readStepState } = require('./encode.js');
const { AnswerReader } = require('./answer.js');
const {
  MODE_NAMES,
  MODE_NOTHING,
  PROMPT_MESSAGE_STRIDE,
  PROMPT_PART_STRIDE,
  PROMPT_CHANGED,
  NEEDS_OUTPUTS,
  PROMPT_PASS,
  PROMPT_REBUILD,
  PROMPT_KEEP,
  PROMPT_TEXT,
  PROMPT_SPLIT_TEXT,
  REPLACEMENT_NONE,
  REPLACEMENT_EVERY_RESULT,
  REPLACEMENT_MODEL_OUTPUT_ONLY,
  PRESERVE_RUN,
  PRESERVE_PROMPT_STEPS,
  PRESERVE_RUN_STEPS,
  PROMPT_HEADER_MODE,
  PROMPT_HEADER_REPLACEMENT,
  PROMPT_HEADER_PRESERVE,
  PROMPT_HEADER_HISTORY_KNOWN,
  PROMPT_HEADER_MESSAGE_COUNT,
  PROMPT_HEADER_PART_COUNT,
  PROMPT_HEADER_ID_COUNT,
  PROMPT_HEADER_NAME_COUNT,
  PROMPT_HEADER_NODE_COUNT,
  PROMPT_HEADER_STEP_LENGTH,
  PROMPT_HEADER_EXCLUDE_COUNT,
  PROMPT_HEADER_SPLIT_AFTER_KEPT_CALLS,
  PROMPT_HEADER_EXCLUDE_NAMES,
} = require('./layout.js');

/** Per-request state key of the tool-call ids in the request's first prompt (the host's key). */
const HISTORY_TOOL_CALL_IDS = '__toolCallFilterHistoryToolCallIds';

/** Where an instance keeps its prompt rules (set once by the constructor). */
const RULES = Symbol('toolCallFilterRules');

/** How the prompt stage chooses surviving tool calls and texts, from the host's capabilities. */
function promptRules(capabilities, filterAfterToolSteps, preserveModelOutput) {
  const preserve =
    filterAfterToolSteps === undefined
      ? PRESERVE_RUN
      : capabilities.toolCallFilterStepWindow === 'prompt'
        ? PRESERVE_PROMPT_STEPS
        : PRESERVE_RUN_STEPS;
  const replacement = !preserveModelOutput
    ? REPLACEMENT_NONE
    : capabilities.toolCallFilterPreserveRule === '1.60'
      ? REPLACEMENT_EVERY_RESULT
      : REPLACEMENT_MODEL_OUTPUT_ONLY;
  const splitAfterKeptCalls = capabilities.toolCallFilterTextPlacement === 'converted';
  return { preserve, replacement, splitAfterKeptCalls };
}

/** The tool-call ids of a prompt message's tool parts. */
function toolCallIdsOf(message, into) {
  if (!message || (message.role !== 'assistant' && message.role !== 'tool') || !Array.isArray(message.content)) return;
  for (const part of message.content) {
    if (part && (part.type === 'tool-call' || part.type === 'tool-result')) into.add(part.toolCallId);
  }
}

/**
 * For a request's first prompt that ends with tool calls after its last user message (a resumed
 * run): the ids before that message, i.e. the history. Undefined for an ordinary first prompt.
 */
function historyBeforeResumedCalls(prompt) {
  let lastUser = -1;
  for (let i = prompt.length - 1; i >= 0; i--) {
    if (prompt[i]?.role === 'user') {
      lastUser = i;
      break;
    }
  }
  if (lastUser < 0) return undefined;
  const trailing = new Set();
  for (let i = lastUser + 1; i < prompt.length; i++) toolCallIdsOf(prompt[i], trailing);
  if (trailing.size === 0) return undefined;
  const history = new Set();
  for (let i = 0; i < lastUser; i++) toolCallIdsOf(prompt[i], history);
  // (an id both before and after the user message stays history, as the host has it)
  return history;
}

/** Upper bound of the answer ints: changed flag, history list, step lists, and per part a plan of
 * source, count and at most one segment per node; plus the split plans (at most 3 per assistant
 * message and one per part). */
function promptIntsBound(idCount, stepInts, partCount, messageCount, nodeCount) {
  return 3 + idCount + stepInts + 5 * partCount + 3 * messageCount + nodeCount + 16;
}

/**
 * One `processLLMRequest` call: returns `{ prompt }` with the filtered prompt, or undefined when
 * the prompt goes on unchanged (as the host's filter does). Updates the per-request `state`.
 */
function runPromptFilter(filter, prompt, state) {
  const exclude = filter.exclude;
  const mode = excludeMode(exclude);
  if (mode === MODE_NOTHING) return undefined;
  if (!Array.isArray(prompt)) return undefined;
  const { preserve, replacement, splitAfterKeptCalls } = filter[RULES];
  // The runner always supplies `state`; without one the history lives for this call only.
  const requestState = state !== null && typeof state === 'object' ? state : {};

  const scratch = acquireScratch();
  try {
    const encoder = new Encoder(scratch, true, mode === MODE_NAMES, false);
    const excludeCount = mode === MODE_NAMES ? exclude.length : 0;
    encoder.encodeExclude(exclude, excludeCount, PROMPT_HEADER_EXCLUDE_NAMES);

    let stepWire = null;
    let previousGroups = null;
    if (preserve === PRESERVE_RUN_STEPS) {
      const { seen, groups } = readStepState(requestState);
      previousGroups = groups;
      stepWire = encoder.encodeStep(seen, previousGroups, []);
    }
    encoder.encodePrompt(prompt, replacement);

    // A resumed run (an approval, a suspended tool's answer) starts with its own calls after the
    // last user message; the host records them as history and strips them (#24382). Ours
    // records only the calls before that message, so the run keeps its own calls and results.
    if (preserve === PRESERVE_RUN && requestState[HISTORY_TOOL_CALL_IDS] == null) {
      const resumedHistory = historyBeforeResumedCalls(prompt);
      if (resumedHistory) requestState[HISTORY_TOOL_CALL_IDS] = resumedHistory;
    }
    // The recorded history (a Set in the host) decides, per interned id, what belongs to the run.
    const history = preserve === PRESERVE_PROMPT_STEPS ? undefined : requestState[HISTORY_TOOL_CALL_IDS];
    const historyKnown = history != null;
    const idCount = encoder.idValues.length;
    if (historyKnown) {
      scratch.reserve('history', idCount);
      const flags = scratch.history;
      const has = typeof history.has === 'function' ? (id) => history.has(id) : () => false;
      for (let k = 0; k < idCount; k++) flags[k] = has(encoder.idValues[k]) ? 1 : 0;
    }

    const messageCount = encoder.messageCount;
    const partCount = encoder.partCount;
    const header = scratch.header;
    header[PROMPT_HEADER_MODE] = mode;
    header[PROMPT_HEADER_REPLACEMENT] = replacement;
    header[PROMPT_HEADER_PRESERVE] = preserve;
    header[PROMPT_HEADER_HISTORY_KNOWN] = historyKnown ? 1 : 0;
    header[PROMPT_HEADER_MESSAGE_COUNT] = messageCount;
    header[PROMPT_HEADER_PART_COUNT] = partCount;
    header[PROMPT_HEADER_ID_COUNT] = idCount;
    header[PROMPT_HEADER_NAME_COUNT] = encoder.nameIndex.size;
    header[PROMPT_HEADER_NODE_COUNT] = encoder.nodeCount;
    header[PROMPT_HEADER_STEP_LENGTH] = stepWire === null ? 0 : stepWire.length;
    header[PROMPT_HEADER_EXCLUDE_COUNT] = excludeCount;
    header[PROMPT_HEADER_SPLIT_AFTER_KEPT_CALLS] = splitAfterKeptCalls ? 1 : 0;

    scratch.reserve('actions', messageCount + partCount);
    const stepInts = stepWire === null ? 0 : 2 + stepWire.seenCount + 2 * idCount;
    scratch.reserve('ints', promptIntsBound(idCount, stepInts, partCount, messageCount, encoder.nodeCount));

    const window = filter.filterAfterToolSteps === undefined ? 0 : +(filter.filterAfterToolSteps ?? 0);
    let written;
    for (;;) {
      try {
        written = nativeToolCallFilterDecidePrompt(
          header,
          window,
          scratch.promptMessages,
          scratch.promptParts,
          scratch.idTruthy,
          scratch.history,
          scratch.tape,
          scratch.step,
          scratch.actions,
          scratch.ints,
        );
      } catch (error) {
        // Texts repeated for calls sharing an id can outgrow the estimate: grow and decide again.
        if (!/output buffer too small: ints/.test(String(error && error.message))) throw error;
        scratch.reserve('ints', scratch.ints.length * 2);
        continue;
      }
      if (scratch.ints[0] === NEEDS_OUTPUTS) {
        // Encode the outputs the texts need, then decide again.
        const locator = new PartLocator(prompt, scratch.promptMessages, encoder.messageCount);
        const missing = scratch.ints.slice(2, 2 + scratch.ints[1]);
        for (const index of missing) {
          const root = encoder.encodeRoot(locator.at(index).output);
          scratch.promptParts[index * PROMPT_PART_STRIDE + 4] = root;
        }
        header[PROMPT_HEADER_NODE_COUNT] = encoder.nodeCount;
        scratch.reserve('ints', promptIntsBound(idCount, stepInts, partCount, messageCount, encoder.nodeCount));
        continue;
      }
      if (encoder.nodeCount === 0 || resolvePromptLazyJson(scratch.ints, encoder, stepWire !== null, written)) break;
    }

    const answer = new AnswerReader(scratch.ints, 0, encoder.idValues, encoder.segments);
    const changed = answer.next() === PROMPT_CHANGED;
    const recorded = answer.idList();
    if (!historyKnown && preserve !== PRESERVE_PROMPT_STEPS) requestState[HISTORY_TOOL_CALL_IDS] = new Set(recorded);
    if (stepWire !== null) answer.updateStepState(requestState, previousGroups);
    if (!changed) return undefined;
    return { prompt: buildPrompt(prompt, scratch, encoder, answer) };
  } finally {
    releaseScratch(scratch);
  }
}

/** Offset of the plans in the prompt answer: past the changed flag, history and step lists. */
function promptPlansStart(ints, hasStep) {
  let cursor = 1;
  cursor += 1 + ints[cursor];
  if (hasStep) {
    cursor += 1 + ints[cursor];
    cursor += 1 + ints[cursor];
  }
  return cursor + 1 + ints[cursor]; // split plans
}

/** Resolves the lazy array-JSON refs of the answer's `[source, count, segments...]` plans (false:
 * some JSON.stringify failed, decide again). */
function resolvePromptLazyJson(ints, encoder, hasStep, written) {
  if (ints[0] !== PROMPT_CHANGED) return true;
  let cursor = promptPlansStart(ints, hasStep);
  let resolved = true;
  while (cursor < written) {
    cursor++; // source part
    const segmentCount = ints[cursor++];
    if (!encoder.resolveLazySegments(ints, cursor, segmentCount)) resolved = false;
    cursor += segmentCount;
  }
  return resolved;
}

/** Finds a part by its global index (parts numbered across the prompt's part records). */
class PartLocator {
  constructor(prompt, records, messageCount) {
    this.prompt = prompt;
    this.records = records;
    this.messageCount = messageCount;
    this.firsts = null; // first global part index of every message, built on first use
  }

  at(index) {
    let firsts = this.firsts;
    if (firsts === null) {
      const count = this.messageCount;
      firsts = new Int32Array(count + 1);
      for (let i = 0; i < count; i++) firsts[i + 1] = firsts[i] + this.records[i * PROMPT_MESSAGE_STRIDE + 1];
      this.firsts = firsts;
    }
    // The last message whose first part is at or before `index` (and that has parts).
    let low = 0;
    let high = this.messageCount - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (firsts[middle] <= index) low = middle;
      else high = middle - 1;
    }
    while (low < this.messageCount && firsts[low + 1] <= index) low++;
    return this.prompt[low].content[index - firsts[low]];
  }
}

function buildPrompt(prompt, scratch, encoder, answer) {
  const count = encoder.messageCount;
  const records = scratch.promptMessages;
  const actions = scratch.actions;

  // Split assistant messages (1.58/1.59 text placement): where each following tool part goes.
  const splits = new Map();
  const splitEnd = answer.cursor + 1 + answer.ints[answer.cursor];
  answer.cursor++;
  while (answer.cursor < splitEnd) {
    const assistant = answer.next();
    const tool = answer.next();
    const toolPartCount = answer.next();
    splits.set(assistant, { tool, segmentOf: answer.ints.slice(answer.cursor, answer.cursor + toolPartCount) });
    answer.cursor += toolPartCount;
  }

  const locator = new PartLocator(prompt, records, count);
  const textPart = () => {
    const source = locator.at(answer.next());
    return answer.textPart(source.toolName);
  };

  const output = [];
  let partIndex = count;
  let consumed = -1; // a tool message already emitted with its split assistant message
  for (let i = 0; i < count; i++) {
    const partCount = records[i * PROMPT_MESSAGE_STRIDE + 1];
    const action = actions[i];
    if (i === consumed) {
      // emitted with the assistant message before it
    } else if (action === PROMPT_PASS) {
      output.push(prompt[i]);
    } else if (action === PROMPT_REBUILD) {
      const message = prompt[i];
      const parts = message.content;
      const pieces = [[]];
      for (let j = 0; j < partCount; j++) {
        const partAction = actions[partIndex + j];
        if (partAction === PROMPT_KEEP) {
          pieces[pieces.length - 1].push(parts[j]);
        } else if (partAction === PROMPT_TEXT) {
          pieces[pieces.length - 1].push(textPart());
        } else if (partAction === PROMPT_SPLIT_TEXT) {
          pieces.push([textPart()]);
        }
      }
      const split = splits.get(i);
      if (split === undefined) {
        output.push({ ...message, content: pieces[0] });
      } else {
        const toolPieces = pieces.map(() => []);
        const toolMessage = split.tool >= 0 ? prompt[split.tool] : undefined;
        if (toolMessage !== undefined) {
          const toolParts = toolMessage.content;
          for (let j = 0; j < split.segmentOf.length; j++) {
            const segment = split.segmentOf[j];
            if (segment >= 0) toolPieces[segment].push(toolParts[j]);
          }
          consumed = split.tool;
        }
        for (let k = 0; k < pieces.length; k++) {
          output.push({ ...message, content: pieces[k] });
          if (toolPieces[k].length > 0) output.push({ ...toolMessage, content: toolPieces[k] });
        }
      }
    }
    partIndex += partCount;
  }
  return output;
}

module.exports = { runPromptFilter, promptRules, RULES };
