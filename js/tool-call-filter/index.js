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
//
// Files: encode.js (the encoder both stages share), messages.js and prompt.js (one stage each:
// the native call and the output), answer.js (reading the core's answer), scratch.js (reused
// buffers), layout.js (the wire layout's numbers, from the core). This file: the processor.

const { host } = require('../host.js');
const { describeValue } = require('../util.js');
const { checkOptions } = require('../options.js');
const { runFilter, profile } = require('./messages.js');
const { runPromptFilter, promptRules, RULES } = require('./prompt.js');

function describe(value) {
  return typeof value === 'bigint' ? `${value}n` : String(value);
}

const STAGES = ['prompt'];

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
