'use strict';
// Typed-array buffers reused across calls (grown by doubling), shared by both stages.

const { MESSAGE_STRIDE, PART_STRIDE, INVOCATION_STRIDE, NODE_STRIDE, PROMPT_MESSAGE_STRIDE, PROMPT_PART_STRIDE } = require('./layout.js');

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

  /** Grows buffer `name` to hold at least `length` elements (keeping its contents). */
  reserve(name, length) {
    if (length > this[name].length) this[name] = grown(this[name], length);
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

module.exports = { acquireScratch, releaseScratch, grown };
