'use strict';
// The encoder both stages share: it reads the messages (or the prompt) once and describes them
// to the Rust core as flat Int32Array records in the scratch buffers, interning tool-call ids and
// tool names to indices with a Map (SameValueZero, like the reference's Set/includes). It also
// writes the model-output tape (the values `<tool> result:` texts render) and the step-window
// input. Record field order is documented with each stride in the core's layout.rs.

const { grown } = require('./scratch.js');
const {
  MESSAGE_STRIDE,
  PART_STRIDE,
  INVOCATION_STRIDE,
  NODE_STRIDE,
  NONE,
  SHAPE_OPAQUE,
  SHAPE_WITH_PARTS,
  FLAG_TOP_LEVEL_TEXT,
  PART_OTHER,
  PART_TOOL_INVOCATION,
  PART_HOLE,
  STATE_OTHER,
  STATE_CALL,
  STATE_RESULT,
  NODE_NOTHING,
  NODE_STRING,
  NODE_PRIMITIVE,
  NODE_ARRAY,
  NODE_OBJECT,
  LAZY_JSON,
  OBJECT_TYPE_IS_TEXT,
  OBJECT_HAS_VALUE,
  OBJECT_TEXT_IS_STRING,
  OBJECT_TEXT_IS_EMPTY,
  PROMPT_MESSAGE_STRIDE,
  PROMPT_PART_STRIDE,
  ROLE_PASS,
  ROLE_ASSISTANT,
  ROLE_OTHER,
  ROLE_OPAQUE,
  ROLE_OPAQUE_EMPTY,
  PROMPT_PART_OTHER,
  PROMPT_PART_TOOL_CALL,
  PROMPT_PART_TOOL_RESULT,
  FLAG_MODEL_OUTPUT_MARKER,
  REPLACEMENT_NONE,
  REPLACEMENT_EVERY_RESULT,
  OUTPUT_NOT_ENCODED,
  MODE_ALL,
  MODE_NAMES,
  MODE_NOTHING,
} = require('./layout.js');

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

  /** Interns the excluded names into the header after its `fixed` fields. */
  encodeExclude(exclude, count, fixed) {
    const scratch = this.scratch;
    scratch.reserve('header', fixed + count);
    const header = scratch.header;
    // `includes` visits every index, holes included (as undefined).
    for (let k = 0; k < count; k++) header[fixed + k] = this.internName(exclude[k]);
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
      out[start + 2] = NONE;
      out[start + 3] = NONE;
      out[start + 4] = NONE;
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
      entries[entry] = this.needIds ? this.toolCallIdOf(invocation) : NONE;
      entries[entry + 1] = this.needNames ? this.internName(invocation == null ? undefined : invocation.toolName) : NONE;
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
        out[start + 1] = NONE;
        out[start + 2] = NONE;
        out[start + 3] = 0;
        out[start + 4] = NONE;
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

  /** Root node of the part's model output, or NONE when it has none. */
  encodeModelOutputOf(part) {
    const providerMetadata = part.providerMetadata;
    const mastra = providerMetadata == null ? undefined : providerMetadata.mastra;
    if (!mastra || !Object.hasOwn(mastra, 'modelOutput')) return NONE;
    const modelOutput = mastra.modelOutput;
    if (modelOutput == null) return NONE;
    return this.encodeRoot(modelOutput);
  }

  /** Encodes a value to render as text; returns its root node, or NONE when it is too deep. */
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
      return NONE;
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

  /** `JSON.stringify(value)` as a segment, or NONE when it throws or yields undefined. */
  jsonSegment(value) {
    let json;
    try {
      json = JSON.stringify(value);
    } catch {
      return NONE;
    }
    return typeof json === 'string' ? this.segment(json) : NONE;
  }

  encodeValue(value) {
    switch (typeof value) {
      case 'string':
        this.node(NODE_STRING, value === '' ? 1 : 0, this.segment(value), NONE);
        return;
      case 'number':
      case 'boolean':
      case 'bigint':
        this.node(NODE_PRIMITIVE, 0, this.segment(String(value)), NONE);
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
    this.node(NODE_NOTHING, 0, NONE, NONE);
  }

  encodeArray(array) {
    const length = array.length;
    // JSON.stringify(array) is needed only when no element renders text: computed on demand.
    this.lazyArrays.push(array);
    this.lazyArrayNodes.push(this.nodeCount);
    this.node(NODE_ARRAY, length, NONE, LAZY_JSON - (this.lazyArrays.length - 1));
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
    const json = !hasValue && !textIsString ? this.jsonSegment(object) : NONE;
    this.node(NODE_OBJECT, flags, textIsString ? this.segment(text) : NONE, json);
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

  // --- lazy array JSON ---

  /**
   * Resolves the lazy JSON refs among the `count` segment refs at `ints[cursor…]` in place;
   * false when one of them has no JSON form (every ref is still visited).
   */
  resolveLazySegments(ints, cursor, count) {
    let resolved = true;
    for (let end = cursor + count; cursor < end; cursor++) {
      const ref = ints[cursor];
      if (ref > LAZY_JSON) continue;
      const lazy = LAZY_JSON - ref;
      const segment = this.jsonSegment(this.lazyArrays[lazy]);
      // Either way the tape now holds the answer, so a second decision needs no lazy ref here.
      this.scratch.tape[this.lazyArrayNodes[lazy] * NODE_STRIDE + 3] = segment;
      if (segment === NONE) resolved = false;
      else ints[cursor] = segment;
    }
    return resolved;
  }
}

function iterableOrEmpty(value) {
  if (value == null) return [];
  try {
    return [...value];
  } catch {
    // The reference throws a TypeError on a non-iterable state entry; we start over instead.
    return [];
  }
}

/** The step window's state lists (under the host's keys), as arrays. */
function readStepState(state) {
  const seen = iterableOrEmpty(state.toolCallFilterSeenToolCallIds);
  const groups = iterableOrEmpty(state.toolCallFilterStepToolCallIds);
  return { seen, groups };
}

/** The `mode` header field for the normalised `exclude` option ('all' or an array). */
function excludeMode(exclude) {
  if (exclude === 'all') return MODE_ALL;
  return exclude.length > 0 ? MODE_NAMES : MODE_NOTHING;
}

module.exports = { Encoder, excludeMode, readStepState };
