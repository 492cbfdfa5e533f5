'use strict';
// ToolCallFilter: a drop-in for the host's (@mastra/core 1.58–1.71) processor of the same name.
//
// Two stages, as the hosts have them (js/host.js says which one the installed host uses):
// - 'messages' (1.58/1.59): processInput/processInputStep return the filtered MessageList
//   messages (which the host then stores: filtered tool calls are gone for good);
// - 'prompt' (1.60+, and on 1.58/1.59 with `stage: 'prompt'`): processLLMRequest trims only the
//   prompt sent to the model; the MessageList and memory keep everything.
// An instance has exactly the methods of its stage, because the host's runner decides what to
// call by which methods exist.
//
// This layer reads the messages (or the prompt) once and describes them to the Rust core as flat Int32Array
// records (tool-call ids and tool names interned to indices with a Map, i.e. SameValueZero like
// the reference's Set/includes). The core decides what happens to every message, part and
// `toolInvocations` entry (and runs the filterAfterToolSteps window); this layer then builds the
// output from those decisions, reusing the original objects wherever the reference does.

const { nativeToolCallFilterDecide, nativeToolCallFilterDecidePrompt } = require('./native.js');
const { host } = require('./host.js');
const { describeValue } = require('./util.js');
const { checkOptions } = require('./options.js');

// --- wire constants (mirror crates/core/src/tool_call_filter) ---------------------------------
const MESSAGE_STRIDE = 4; // [shape, flags, partCount, invocationCount]
const PART_STRIDE = 5; // [kind, state, toolCallId, toolName, modelOutputRoot]
const INVOCATION_STRIDE = 2; // [toolCallId, toolName]
const NODE_STRIDE = 4; // [kind, a, b, c]

const SHAPE_OPAQUE = 0;
const SHAPE_WITH_PARTS = 1;
const FLAG_TOP_LEVEL_TEXT = 1;

const PART_OTHER = 0;
const PART_TOOL_INVOCATION = 1;
const PART_HOLE = 2;

const STATE_OTHER = 0;
const STATE_CALL = 1;
const STATE_RESULT = 2;

const NODE_NOTHING = 0;
const NODE_STRING = 1;
const NODE_PRIMITIVE = 2;
const NODE_ARRAY = 3;
const NODE_OBJECT = 4;
const LAZY_JSON = -2; // array JSON refs are LAZY_JSON - k for the k-th lazy array
const OBJECT_TYPE_IS_TEXT = 1;
const OBJECT_HAS_VALUE = 2;
const OBJECT_TEXT_IS_STRING = 4;
const OBJECT_TEXT_IS_EMPTY = 8;

const MODE_ALL = 0;
const MODE_NAMES = 1;
const MODE_NOTHING = 2;

// Prompt stage (mirror crates/core/src/tool_call_filter/prompt.rs and src/tool_call_filter.rs).
const PROMPT_MESSAGE_STRIDE = 2; // [role, partCount]
const PROMPT_PART_STRIDE = 5; // [kind, toolCallId, toolName, flags, outputRoot]
const ROLE_PASS = 0;
const ROLE_ASSISTANT = 1;
const ROLE_OTHER = 2;
const ROLE_OPAQUE = 3;
const ROLE_OPAQUE_EMPTY = 4;
const PROMPT_PART_OTHER = 0;
const PROMPT_PART_TOOL_CALL = 1;
const PROMPT_PART_TOOL_RESULT = 2;
const FLAG_MODEL_OUTPUT_MARKER = 1;
const REPLACEMENT_NONE = 0;
const REPLACEMENT_EVERY_RESULT = 1;
const REPLACEMENT_MODEL_OUTPUT_ONLY = 2;
const PRESERVE_RUN = 0;
const PRESERVE_PROMPT_STEPS = 1;
const PRESERVE_RUN_STEPS = 2;
const PROMPT_PASS = 0;
const PROMPT_REBUILD = 1;
const PROMPT_KEEP = 0;
const PROMPT_TEXT = 2;
const PROMPT_SPLIT_TEXT = 3;
const OUTPUT_NOT_ENCODED = -3;
const NEEDS_OUTPUTS = 2;
const PROMPT_HEADER_FIXED = 12; // prompt header fields before the excluded name indices

/** Per-request state key of the tool-call ids in the request's first prompt (the host's key). */
const HISTORY_TOOL_CALL_IDS = '__toolCallFilterHistoryToolCallIds';

const HEADER_FIXED = 11; // header fields before the excluded name indices
const ACTION_PASS = 0;
const ACTION_REBUILD = 1;
const PART_KEEP = 0;
const PART_TEXT = 2;

// --- reusable buffers -------------------------------------------------------------------------

/** Typed-array buffers reused across calls; grown by doubling. */
class Scratch {
  constructor() {
    this.inUse = false;
    this.messages = new Int32Array(1024 * MESSAGE_STRIDE);
    this.parts = new Int32Array(2048 * PART_STRIDE);
    this.invocations = new Int32Array(256 * INVOCATION_STRIDE);
    this.idTruthy = new Uint8Array(1024);
    this.tape = new Int32Array(256 * NODE_STRIDE);
    this.step = new Int32Array(256);
    this.header = new Int32Array(64);
    this.actions = new Uint8Array(4096);
    this.ints = new Int32Array(1024);
    this.promptMessages = new Int32Array(256 * PROMPT_MESSAGE_STRIDE);
    this.promptParts = new Int32Array(1024 * PROMPT_PART_STRIDE);
    this.history = new Uint8Array(1024);
  }
}

function grown(array, needed) {
  let size = array.length * 2;
  while (size < needed) size *= 2;
  const next = new array.constructor(size);
  next.set(array);
  return next;
}

let sharedScratch = null;

// A user `toJSON`/getter could re-enter the filter while we encode; it then gets fresh buffers.
function acquireScratch() {
  if (sharedScratch === null) sharedScratch = new Scratch();
  if (!sharedScratch.inUse) {
    sharedScratch.inUse = true;
    return sharedScratch;
  }
  const fresh = new Scratch();
  fresh.inUse = true;
  return fresh;
}

function releaseScratch(scratch) {
  scratch.inUse = false;
}

// --- profiling hook (used by bench/tool-call-filter.mjs) --------------------------------------
const profile = { enabled: false, encodeMs: 0, nativeMs: 0, buildMs: 0, calls: 0 };
const now = () => performance.now();

// --- encoding ---------------------------------------------------------------------------------

/** Per-call encoder state: interning tables, counters and the model-output segment table. */
class Encoder {
  constructor(scratch, needIds, needNames, preserveModelOutput) {
    this.scratch = scratch;
    this.needIds = needIds;
    this.needNames = needNames;
    this.preserveModelOutput = preserveModelOutput;
    this.idIndex = new Map();
    this.idValues = [];
    this.nameIndex = new Map();
    this.messageCount = 0;
    this.partCount = 0;
    this.invocationCount = 0;
    this.nodeCount = 0;
    this.segments = [];
    this.lazyArrays = []; // arrays whose JSON is computed only if a plan needs it
    this.lazyArrayNodes = []; // their node indices
    this.path = null; // objects on the current model-output path (cycle guard)
    this.pathSet = null; // that set, reused across values
  }

  internId(value) {
    let index = this.idIndex.get(value);
    if (index === undefined) {
      index = this.idValues.length;
      this.idIndex.set(value, index);
      // A Set stores -0 as +0; the state arrays we write back must too.
      this.idValues.push(value === 0 ? 0 : value);
      const scratch = this.scratch;
      if (index >= scratch.idTruthy.length) scratch.idTruthy = grown(scratch.idTruthy, index + 1);
      scratch.idTruthy[index] = value ? 1 : 0;
    }
    return index;
  }

  internName(value) {
    let index = this.nameIndex.get(value);
    if (index === undefined) {
      index = this.nameIndex.size;
      this.nameIndex.set(value, index);
    }
    return index;
  }

  /** `toolInvocation.toolCallId ?? toolInvocation.toolCall?.id`, interned. */
  toolCallIdOf(invocation) {
    if (invocation == null) return this.internId(undefined);
    let id = invocation.toolCallId;
    if (id == null) {
      const toolCall = invocation.toolCall;
      id = toolCall == null ? undefined : toolCall.id;
    }
    return this.internId(id);
  }

  encodeMessages(messages) {
    const count = messages.length;
    for (let i = 0; i < count; i++) this.encodeMessage(messages[i]);
  }

  encodeMessage(message) {
    const scratch = this.scratch;
    const at = this.messageCount++ * MESSAGE_STRIDE;
    if (at + MESSAGE_STRIDE > scratch.messages.length) scratch.messages = grown(scratch.messages, at + MESSAGE_STRIDE);
    const record = scratch.messages;
    record[at] = SHAPE_OPAQUE;
    record[at + 1] = 0;
    record[at + 2] = 0;
    record[at + 3] = 0;
    if (message == null) return;
    const content = message.content;
    if (content == null || typeof content === 'string') return;
    const parts = content.parts;
    if (!Array.isArray(parts)) return;

    record[at] = SHAPE_WITH_PARTS;
    const partCount = parts.length;
    record[at + 2] = partCount;
    let start = this.partCount * PART_STRIDE;
    if (start + partCount * PART_STRIDE > scratch.parts.length) {
      scratch.parts = grown(scratch.parts, start + partCount * PART_STRIDE);
    }
    const out = scratch.parts;
    let hasToolPart = false;
    for (let j = 0; j < partCount; j++, start += PART_STRIDE) {
      const part = parts[j];
      out[start + 2] = -1;
      out[start + 3] = -1;
      out[start + 4] = -1;
      out[start + 1] = STATE_OTHER;
      if (part == null) {
        out[start] = part === undefined && !(j in parts) ? PART_HOLE : PART_OTHER;
        continue;
      }
      if (part.type !== 'tool-invocation') {
        out[start] = PART_OTHER;
        continue;
      }
      hasToolPart = true;
      out[start] = PART_TOOL_INVOCATION;
      const invocation = part.toolInvocation;
      if (this.needIds) out[start + 2] = this.toolCallIdOf(invocation);
      if (invocation == null) {
        if (this.needNames) out[start + 3] = this.internName(undefined);
        continue;
      }
      if (this.needNames) out[start + 3] = this.internName(invocation.toolName);
      const state = invocation.state;
      const stateCode = state === 'call' ? STATE_CALL : state === 'result' ? STATE_RESULT : STATE_OTHER;
      out[start + 1] = stateCode;
      if (this.preserveModelOutput && stateCode === STATE_RESULT) {
        out[start + 4] = this.encodeModelOutputOf(part);
      }
    }
    if (!hasToolPart) {
      // Passes through untouched: its parts need not cross at all.
      record[at + 2] = 0;
      return;
    }
    this.partCount += partCount;
    const topLevel = content.content;
    if (typeof topLevel === 'string' && topLevel.trim().length > 0) record[at + 1] = FLAG_TOP_LEVEL_TEXT;
    const invocations = content.toolInvocations;
    if (!Array.isArray(invocations)) return;
    const invocationCount = invocations.length;
    record[at + 3] = invocationCount;
    let entry = this.invocationCount * INVOCATION_STRIDE;
    if (entry + invocationCount * INVOCATION_STRIDE > scratch.invocations.length) {
      scratch.invocations = grown(scratch.invocations, entry + invocationCount * INVOCATION_STRIDE);
    }
    const entries = scratch.invocations;
    for (let k = 0; k < invocationCount; k++, entry += INVOCATION_STRIDE) {
      const invocation = invocations[k];
      entries[entry] = this.needIds ? this.toolCallIdOf(invocation) : -1;
      entries[entry + 1] = this.needNames ? this.internName(invocation == null ? undefined : invocation.toolName) : -1;
    }
    this.invocationCount += invocationCount;
  }

  // --- prompt (LanguageModelV2Prompt) ---

  /**
   * Describes the prompt: one record per message and per part of an assistant/tool message.
   * `replacement` says which results' `output` must be encoded for `<tool> result:` texts.
   */
  encodePrompt(prompt, replacement) {
    const count = prompt.length;
    const scratch = this.scratch;
    if (count * PROMPT_MESSAGE_STRIDE > scratch.promptMessages.length) {
      scratch.promptMessages = grown(scratch.promptMessages, count * PROMPT_MESSAGE_STRIDE);
    }
    const records = scratch.promptMessages;
    for (let i = 0; i < count; i++) {
      const message = prompt[i];
      const at = i * PROMPT_MESSAGE_STRIDE;
      records[at + 1] = 0;
      const role = message == null ? undefined : message.role;
      if (role === 'system' || role === 'user' || message == null) {
        records[at] = ROLE_PASS;
        continue;
      }
      const content = message.content;
      if (!Array.isArray(content)) {
        records[at] = content === '' ? ROLE_OPAQUE_EMPTY : ROLE_OPAQUE;
        continue;
      }
      records[at] = role === 'assistant' ? ROLE_ASSISTANT : ROLE_OTHER;
      const partCount = content.length;
      records[at + 1] = partCount;
      let start = this.partCount * PROMPT_PART_STRIDE;
      if (start + partCount * PROMPT_PART_STRIDE > scratch.promptParts.length) {
        scratch.promptParts = grown(scratch.promptParts, start + partCount * PROMPT_PART_STRIDE);
      }
      const out = scratch.promptParts;
      for (let j = 0; j < partCount; j++, start += PROMPT_PART_STRIDE) {
        const part = content[j];
        const type = part == null ? undefined : part.type;
        out[start + 1] = -1;
        out[start + 2] = -1;
        out[start + 3] = 0;
        out[start + 4] = -1;
        if (type !== 'tool-call' && type !== 'tool-result') {
          out[start] = PROMPT_PART_OTHER;
          continue;
        }
        out[start + 1] = this.internId(part.toolCallId);
        if (this.needNames) out[start + 2] = this.internName(part.toolName);
        if (type === 'tool-call') {
          out[start] = PROMPT_PART_TOOL_CALL;
          continue;
        }
        out[start] = PROMPT_PART_TOOL_RESULT;
        if (replacement === REPLACEMENT_NONE) continue;
        const providerOptions = part.providerOptions;
        const mastra = providerOptions == null ? undefined : providerOptions.mastra;
        const marked = Boolean(mastra) && Object.hasOwn(mastra, 'modelOutput') && mastra.modelOutput != null;
        if (marked) out[start + 3] = FLAG_MODEL_OUTPUT_MARKER;
        // Encoded only if the core asks (a removed result that may leave a text).
        if (marked || replacement === REPLACEMENT_EVERY_RESULT) out[start + 4] = OUTPUT_NOT_ENCODED;
      }
      this.partCount += partCount;
    }
    this.messageCount = count;
  }

  // --- model output (providerMetadata.mastra.modelOutput) ---

  /** Root node of the part's model output, or -1 when it has none. */
  encodeModelOutputOf(part) {
    const providerMetadata = part.providerMetadata;
    const mastra = providerMetadata == null ? undefined : providerMetadata.mastra;
    if (!mastra || !Object.hasOwn(mastra, 'modelOutput')) return -1;
    const modelOutput = mastra.modelOutput;
    if (modelOutput == null) return -1;
    return this.encodeRoot(modelOutput);
  }

  /** Encodes a value to render as text; returns its root node, or -1 when it is too deep. */
  encodeRoot(value) {
    const root = this.nodeCount;
    const segmentsBefore = this.segments.length;
    this.path = this.pathSet ??= new Set();
    try {
      this.encodeValue(value);
      return root;
    } catch {
      // Only a value nested deeper than the JS stack allows gets here (the reference overflows too).
      this.nodeCount = root;
      this.segments.length = segmentsBefore;
      return -1;
    } finally {
      this.path.clear();
      this.path = null;
    }
  }

  node(kind, a, b, c) {
    const scratch = this.scratch;
    const at = this.nodeCount++ * NODE_STRIDE;
    if (at + NODE_STRIDE > scratch.tape.length) scratch.tape = grown(scratch.tape, at + NODE_STRIDE);
    const tape = scratch.tape;
    tape[at] = kind;
    tape[at + 1] = a;
    tape[at + 2] = b;
    tape[at + 3] = c;
  }

  segment(text) {
    this.segments.push(text);
    return this.segments.length - 1;
  }

  /** `JSON.stringify(value)` as a segment, or -1 when it throws or yields undefined. */
  jsonSegment(value) {
    let json;
    try {
      json = JSON.stringify(value);
    } catch {
      return -1;
    }
    return typeof json === 'string' ? this.segment(json) : -1;
  }

  encodeValue(value) {
    switch (typeof value) {
      case 'string':
        this.node(NODE_STRING, value === '' ? 1 : 0, this.segment(value), -1);
        return;
      case 'number':
      case 'boolean':
      case 'bigint':
        this.node(NODE_PRIMITIVE, 0, this.segment(String(value)), -1);
        return;
      case 'object':
        if (value === null || this.path.has(value)) break;
        this.path.add(value);
        if (Array.isArray(value)) this.encodeArray(value);
        else this.encodeObject(value);
        this.path.delete(value);
        return;
      default:
        break;
    }
    this.node(NODE_NOTHING, 0, -1, -1);
  }

  encodeArray(array) {
    const length = array.length;
    // JSON.stringify(array) is needed only when no element renders text: computed on demand.
    this.lazyArrays.push(array);
    this.lazyArrayNodes.push(this.nodeCount);
    this.node(NODE_ARRAY, length, -1, LAZY_JSON - (this.lazyArrays.length - 1));
    for (let i = 0; i < length; i++) {
      const element = array[i];
      // `map` skips holes; a hole renders as nothing, like undefined.
      this.encodeValue(element);
    }
  }

  encodeObject(object) {
    const hasValue = 'value' in object;
    const text = object.text;
    const textIsString = typeof text === 'string';
    let flags = 0;
    if (object.type === 'text') flags |= OBJECT_TYPE_IS_TEXT;
    if (hasValue) flags |= OBJECT_HAS_VALUE;
    if (textIsString) flags |= OBJECT_TEXT_IS_STRING | (text === '' ? OBJECT_TEXT_IS_EMPTY : 0);
    // The reference stringifies an object only when it has neither `value` nor a string `text`.
    const json = !hasValue && !textIsString ? this.jsonSegment(object) : -1;
    this.node(NODE_OBJECT, flags, textIsString ? this.segment(text) : -1, json);
    if (hasValue) this.encodeValue(object.value);
  }

  // --- step window input ---

  /** Writes `[seenCount, seen..., groupCount, (len, ids...)..., responseCount, ids...]`. */
  encodeStep(seen, groups, responseMessages) {
    const values = [];
    const groupLengths = [];
    for (const id of seen) values.push(this.internId(id));
    const seenCount = values.length;
    for (const group of groups) {
      // `.flat()` spreads array groups one level (skipping holes) and keeps anything else as is.
      if (Array.isArray(group)) {
        let length = 0;
        group.forEach(id => {
          values.push(this.internId(id));
          length++;
        });
        groupLengths.push(length);
      } else {
        values.push(this.internId(group));
        groupLengths.push(1);
      }
    }
    const responseIds = [];
    for (let i = 0; i < responseMessages.length; i++) {
      const message = responseMessages[i];
      if (message == null) continue;
      const content = message.content;
      if (content == null || typeof content === 'string') continue;
      const parts = content.parts;
      if (!Array.isArray(parts)) continue;
      for (let j = 0; j < parts.length; j++) {
        const part = parts[j];
        if (part != null && part.type === 'tool-invocation') responseIds.push(this.toolCallIdOf(part.toolInvocation));
      }
    }

    const length = 3 + values.length + groupLengths.length + responseIds.length;
    const scratch = this.scratch;
    if (length > scratch.step.length) scratch.step = grown(scratch.step, length);
    const wire = scratch.step;
    let at = 0;
    wire[at++] = seenCount;
    for (let k = 0; k < seenCount; k++) wire[at++] = values[k];
    wire[at++] = groupLengths.length;
    let cursor = seenCount;
    for (const groupLength of groupLengths) {
      wire[at++] = groupLength;
      for (let k = 0; k < groupLength; k++) wire[at++] = values[cursor++];
    }
    wire[at++] = responseIds.length;
    for (const id of responseIds) wire[at++] = id;
    return { length, responseCount: responseIds.length, seenCount };
  }
}

// --- the native call and the output ---------------------------------------------------------

function iterableOrEmpty(value) {
  if (value == null) return [];
  try {
    return [...value];
  } catch {
    // The reference throws a TypeError on a non-iterable state entry; we start over instead.
    return [];
  }
}

function excludeMode(exclude) {
  if (exclude === 'all') return MODE_ALL;
  return exclude.length > 0 ? MODE_NAMES : MODE_NOTHING;
}

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
    if (HEADER_FIXED + excludeCount > scratch.header.length) {
      scratch.header = grown(scratch.header, HEADER_FIXED + excludeCount);
    }
    const header = scratch.header;
    // `includes` visits every index, holes included (as undefined).
    for (let k = 0; k < excludeCount; k++) header[HEADER_FIXED + k] = encoder.internName(exclude[k]);

    let stepWire = null;
    let previousGroups = null;
    if (step !== null) {
      const state = step.state;
      const seen = iterableOrEmpty(state.toolCallFilterSeenToolCallIds);
      previousGroups = iterableOrEmpty(state.toolCallFilterStepToolCallIds);
      stepWire = encoder.encodeStep(seen, previousGroups, step.responseMessages);
    }
    if (mode !== MODE_NOTHING) encoder.encodeMessages(messages);

    const messageCount = encoder.messageCount;
    const partCount = encoder.partCount;
    const invocationCount = encoder.invocationCount;
    header[0] = mode;
    header[1] = preserveModelOutput ? 1 : 0;
    header[2] = step !== null ? 1 : 0;
    header[3] = messageCount;
    header[4] = partCount;
    header[5] = invocationCount;
    header[6] = encoder.idValues.length;
    header[7] = encoder.nameIndex.size;
    header[8] = encoder.nodeCount;
    header[9] = stepWire === null ? 0 : stepWire.length;
    header[10] = excludeCount;

    const actionCount = messageCount + partCount + invocationCount;
    if (actionCount > scratch.actions.length) scratch.actions = grown(scratch.actions, actionCount);
    // Upper bound: new ids + seen ids (+2 counts), and per text part a count plus one segment per node.
    const intCount =
      (stepWire === null ? 0 : 2 + stepWire.seenCount + 2 * stepWire.responseCount) + partCount + encoder.nodeCount;
    if (intCount > scratch.ints.length) scratch.ints = grown(scratch.ints, intCount);

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
    } while (encoder.nodeCount > 0 && !resolveLazyJson(scratch, encoder, step !== null, written));
    const decided = profile.enabled ? now() : 0;

    let cursor = 0;
    if (step !== null) {
      const ints = scratch.ints;
      const idValues = encoder.idValues;
      const newIds = [];
      const newCount = ints[cursor++];
      for (let k = 0; k < newCount; k++) newIds.push(idValues[ints[cursor++]]);
      const seenAfter = [];
      const seenCount = ints[cursor++];
      for (let k = 0; k < seenCount; k++) seenAfter.push(idValues[ints[cursor++]]);
      step.state.toolCallFilterSeenToolCallIds = seenAfter;
      step.state.toolCallFilterStepToolCallIds = [...previousGroups, newIds];
    }

    const result = mode === MODE_NOTHING ? messages : buildMessages(messages, scratch, encoder, cursor);
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
function resolveLazyJson(scratch, encoder, hasStep, written) {
  const ints = scratch.ints;
  let cursor = 0;
  if (hasStep) {
    cursor += 1 + ints[cursor];
    cursor += 1 + ints[cursor];
  }
  let resolved = true;
  while (cursor < written) {
    const segmentCount = ints[cursor++];
    if (!resolveLazySegments(ints, cursor, segmentCount, scratch, encoder)) resolved = false;
    cursor += segmentCount;
  }
  return resolved;
}

/**
 * Resolves the lazy JSON refs among the `count` segment refs at `ints[cursor…]` in place;
 * false when one of them has no JSON form (every ref is still visited).
 */
function resolveLazySegments(ints, cursor, count, scratch, encoder) {
  let resolved = true;
  for (let end = cursor + count; cursor < end; cursor++) {
    const ref = ints[cursor];
    if (ref > LAZY_JSON) continue;
    const lazy = LAZY_JSON - ref;
    const segment = encoder.jsonSegment(encoder.lazyArrays[lazy]);
    // Either way the tape now holds the answer, so a second decision needs no lazy ref here.
    scratch.tape[encoder.lazyArrayNodes[lazy] * NODE_STRIDE + 3] = segment;
    if (segment === -1) resolved = false;
    else ints[cursor] = segment;
  }
  return resolved;
}

function buildMessages(messages, scratch, encoder, intCursor) {
  const count = encoder.messageCount;
  const records = scratch.messages;
  const actions = scratch.actions;
  const ints = scratch.ints;
  const segments = encoder.segments;
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
          const segmentCount = ints[intCursor++];
          let text = segments[ints[intCursor++]];
          for (let s = 1; s < segmentCount; s++) text += '\n' + segments[ints[intCursor++]];
          const toolName = parts[j].toolInvocation.toolName;
          // A template literal throws on a symbol; String() does not.
          const label = typeof toolName === 'symbol' ? String(toolName) : `${toolName}`;
          kept.push({ type: 'text', text: `${label} result:\n${text}` });
        }
      }
      const { toolInvocations, ...content } = message.content;
      content.parts = kept;
      if (Array.isArray(toolInvocations)) {
        const keepBase = invocationBase + invocationIndex;
        const survivors = toolInvocations.filter((_, k) => actions[keepBase + k] === 1);
        if (survivors.length > 0) content.toolInvocations = survivors;
      }
      output.push({ ...message, content });
    }
    partIndex += partCount;
    invocationIndex += invocationCount;
  }
  return output;
}

// --- the prompt stage --------------------------------------------------------------------------

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

/**
 * One `processLLMRequest` call: returns `{ prompt }` with the filtered prompt, or undefined when
 * the prompt goes on unchanged (as the host's filter does). Updates the per-request `state`.
 */
function runPromptFilter(filter, prompt, state) {
  const exclude = filter.exclude;
  const mode = excludeMode(exclude);
  if (mode === MODE_NOTHING) return undefined;
  if (!Array.isArray(prompt)) return undefined;
  const rules = filter[RULES];
  const { preserve, replacement, splitAfterKeptCalls } = rules;
  // The runner always supplies `state`; without one the history lives for this call only.
  const requestState = state !== null && typeof state === 'object' ? state : {};

  const scratch = acquireScratch();
  try {
    const encoder = new Encoder(scratch, true, mode === MODE_NAMES, false);
    const excludeCount = mode === MODE_NAMES ? exclude.length : 0;
    if (PROMPT_HEADER_FIXED + excludeCount > scratch.header.length) {
      scratch.header = grown(scratch.header, PROMPT_HEADER_FIXED + excludeCount);
    }
    const header = scratch.header;
    for (let k = 0; k < excludeCount; k++) header[PROMPT_HEADER_FIXED + k] = encoder.internName(exclude[k]);

    let stepWire = null;
    let previousGroups = null;
    if (preserve === PRESERVE_RUN_STEPS) {
      const seen = iterableOrEmpty(requestState.toolCallFilterSeenToolCallIds);
      previousGroups = iterableOrEmpty(requestState.toolCallFilterStepToolCallIds);
      stepWire = encoder.encodeStep(seen, previousGroups, []);
    }
    encoder.encodePrompt(prompt, replacement);

    // The recorded history (a Set in the host) decides, per interned id, what belongs to the run.
    let history = preserve === PRESERVE_PROMPT_STEPS ? undefined : requestState[HISTORY_TOOL_CALL_IDS];
    const historyKnown = history != null;
    const idCount = encoder.idValues.length;
    if (historyKnown) {
      if (idCount > scratch.history.length) scratch.history = grown(scratch.history, idCount);
      const flags = scratch.history;
      const has = typeof history.has === 'function' ? (id) => history.has(id) : () => false;
      for (let k = 0; k < idCount; k++) flags[k] = has(encoder.idValues[k]) ? 1 : 0;
    }

    const messageCount = encoder.messageCount;
    const partCount = encoder.partCount;
    header[0] = mode;
    header[1] = replacement;
    header[2] = preserve;
    header[3] = historyKnown ? 1 : 0;
    header[4] = messageCount;
    header[5] = partCount;
    header[6] = idCount;
    header[7] = encoder.nameIndex.size;
    header[8] = encoder.nodeCount;
    header[9] = stepWire === null ? 0 : stepWire.length;
    header[10] = excludeCount;
    header[11] = splitAfterKeptCalls ? 1 : 0;

    const actionCount = messageCount + partCount;
    if (actionCount > scratch.actions.length) scratch.actions = grown(scratch.actions, actionCount);
    // Upper bound: changed flag, history list, step lists, and per part a plan of source,
    // count and at most one segment per node.
    const stepInts = stepWire === null ? 0 : 2 + stepWire.seenCount + 2 * idCount;
    // Plus the split plans: at most 3 per assistant message and one per part.
    const intCount = 3 + idCount + stepInts + 5 * partCount + 3 * messageCount + encoder.nodeCount + 16;
    if (intCount > scratch.ints.length) scratch.ints = grown(scratch.ints, intCount);

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
        scratch.ints = grown(scratch.ints, scratch.ints.length * 2);
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
        header[8] = encoder.nodeCount;
        const needed = 3 + idCount + stepInts + 5 * partCount + 3 * messageCount + encoder.nodeCount + 16;
        if (needed > scratch.ints.length) scratch.ints = grown(scratch.ints, needed);
        continue;
      }
      if (encoder.nodeCount === 0 || resolvePromptLazyJson(scratch, encoder, stepWire !== null, written)) break;
    }

    const ints = scratch.ints;
    const idValues = encoder.idValues;
    const changed = ints[0] === 1;
    let cursor = 1;
    const historyCount = ints[cursor++];
    if (!historyKnown && preserve !== PRESERVE_PROMPT_STEPS) {
      const recorded = new Set();
      for (let k = 0; k < historyCount; k++) recorded.add(idValues[ints[cursor + k]]);
      requestState[HISTORY_TOOL_CALL_IDS] = recorded;
    }
    cursor += historyCount;
    if (stepWire !== null) {
      const newIds = [];
      const newCount = ints[cursor++];
      for (let k = 0; k < newCount; k++) newIds.push(idValues[ints[cursor++]]);
      const seenAfter = [];
      const seenCount = ints[cursor++];
      for (let k = 0; k < seenCount; k++) seenAfter.push(idValues[ints[cursor++]]);
      requestState.toolCallFilterSeenToolCallIds = seenAfter;
      requestState.toolCallFilterStepToolCallIds = [...previousGroups, newIds];
    }
    if (!changed) return undefined;
    return { prompt: buildPrompt(prompt, scratch, encoder, cursor) };
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

/** As resolveLazyJson, for the prompt answer's `[source, count, segments...]` plans. */
function resolvePromptLazyJson(scratch, encoder, hasStep, written) {
  const ints = scratch.ints;
  if (ints[0] !== 1) return true;
  let cursor = promptPlansStart(ints, hasStep);
  let resolved = true;
  while (cursor < written) {
    cursor++; // source part
    const segmentCount = ints[cursor++];
    if (!resolveLazySegments(ints, cursor, segmentCount, scratch, encoder)) resolved = false;
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

function buildPrompt(prompt, scratch, encoder, intCursor) {
  const count = encoder.messageCount;
  const records = scratch.promptMessages;
  const actions = scratch.actions;
  const ints = scratch.ints;
  const segments = encoder.segments;

  // Split assistant messages (1.58/1.59 text placement): where each following tool part goes.
  const splits = new Map();
  const splitEnd = intCursor + 1 + ints[intCursor];
  intCursor++;
  while (intCursor < splitEnd) {
    const assistant = ints[intCursor++];
    const tool = ints[intCursor++];
    const toolPartCount = ints[intCursor++];
    splits.set(assistant, { tool, segmentOf: ints.slice(intCursor, intCursor + toolPartCount) });
    intCursor += toolPartCount;
  }

  const locator = new PartLocator(prompt, records, count);
  const textPart = () => {
    const source = locator.at(ints[intCursor++]);
    const segmentCount = ints[intCursor++];
    let text = segments[ints[intCursor++]];
    for (let s = 1; s < segmentCount; s++) text += '\n' + segments[ints[intCursor++]];
    const toolName = source.toolName;
    // A template literal throws on a symbol; String() does not.
    const label = typeof toolName === 'symbol' ? String(toolName) : `${toolName}`;
    return { type: 'text', text: `${label} result:\n${text}` };
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

// --- the processor ----------------------------------------------------------------------------

function describe(value) {
  return typeof value === 'bigint' ? `${value}n` : String(value);
}

const STAGES = ['prompt'];
const RULES = Symbol('toolCallFilterRules');

/** The host's stage for ToolCallFilter: 'messages' (1.58/1.59) or 'prompt' (1.60+). */
const HOST_STAGE = host.capabilities.toolCallFilterStage;

/** Every option this processor knows (on every host); others are warned about, not rejected. */
const OPTION_SCHEMA = {
  name: 'ToolCallFilter',
  keys: ['exclude', 'filterAfterToolSteps', 'preserveModelOutput', 'stage'],
  optional: true,
};

/**
 * Filters tool calls and results out of what the model sees (all of them by default, or only
 * the tools named in `exclude`), optionally per agent-loop step (`filterAfterToolSteps`).
 *
 * The instance has the methods of its stage only: `processInput`/`processInputStep` at the
 * 'messages' stage, `processLLMRequest` at the 'prompt' stage.
 */
class ToolCallFilter {
  constructor(options = {}) {
    // The reference throws on `null` options; we treat them as "no options".
    const given = options == null ? {} : options;
    checkOptions(given, OPTION_SCHEMA);
    const requested = given.stage;
    if (requested !== undefined && !STAGES.includes(requested)) {
      throw new TypeError(
        `ToolCallFilter: option "stage" must be 'prompt' or undefined (the host's own stage), got ${describeValue(requested)}`,
      );
    }
    const stage = requested === 'prompt' ? 'prompt' : HOST_STAGE === 'prompt' ? 'prompt' : 'messages';
    // A direct construction gets the prototype of its stage; a subclass keeps its own prototype
    // and receives the stage methods it does not define itself.
    const self = new.target === ToolCallFilter ? Object.create(STAGE_PROTOTYPES[stage]) : this;
    self.id = 'tool-call-filter';
    self.name = 'ToolCallFilter';
    // Same normalisation as the reference: falsy → every tool; a non-array → nothing excluded.
    const exclude = given.exclude;
    self.exclude = !exclude ? 'all' : Array.isArray(exclude) ? exclude : [];
    const filterAfterToolSteps = given.filterAfterToolSteps;
    // The reference accepts these but throws a TypeError from Math.max at the first step.
    if (typeof filterAfterToolSteps === 'bigint' || typeof filterAfterToolSteps === 'symbol') {
      throw new TypeError(
        `ToolCallFilter: option "filterAfterToolSteps" must be a number, got ${typeof filterAfterToolSteps} ${describe(filterAfterToolSteps)}`,
      );
    }
    self.filterAfterToolSteps = filterAfterToolSteps;
    self.preserveModelOutput = given.preserveModelOutput ?? false;
    Object.defineProperty(self, RULES, {
      value: Object.freeze({ stage, ...promptRules(host.capabilities, filterAfterToolSteps, self.preserveModelOutput) }),
    });
    if (self !== this) return self;
    for (const [key, method] of Object.entries(STAGE_METHODS[stage])) {
      if (!(key in this)) Object.defineProperty(this, key, { value: method, writable: true, configurable: true });
    }
  }
}

const STAGE_METHODS = {
  messages: {
    async processInput(args) {
      return runFilter(this, args.messageList.get.all.db(), null);
    },

    async processInputStep(args) {
      const filterAfterToolSteps = this.filterAfterToolSteps;
      if (filterAfterToolSteps === undefined) return {};
      const messageList = args.messageList;
      const messages = messageList.get.all.db();
      // The runner always supplies `state`; without one the window still works for this call.
      const state = args.state !== null && typeof args.state === 'object' ? args.state : {};
      const responseMessages = messageList.get.response.db();
      // `Math.max(0, x)` coerces with ToNumber; unary plus is the same conversion.
      const window = +(filterAfterToolSteps ?? 0);
      return { messages: runFilter(this, messages, { state, responseMessages, window }) };
    },
  },
  prompt: {
    // 1.71 hosts also pass `llmRequestStage`/`messageList`; like the host's filter we use neither.
    async processLLMRequest(args) {
      return runPromptFilter(this, args.prompt, args.state);
    },
  },
};

const STAGE_PROTOTYPES = {};
for (const [stage, methods] of Object.entries(STAGE_METHODS)) {
  const prototype = Object.create(ToolCallFilter.prototype);
  for (const [key, method] of Object.entries(methods)) {
    Object.defineProperty(prototype, key, { value: method, writable: true, configurable: true });
  }
  STAGE_PROTOTYPES[stage] = prototype;
}

module.exports = { ToolCallFilter, __toolCallFilterProfile: profile };
