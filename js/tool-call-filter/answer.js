'use strict';
// Reading the core's answer (`ints`): id lists, the step window's state, and the plans of the
// `<tool> result:` texts, the same in both stages.

/** A cursor over the answer ints. */
class AnswerReader {
  constructor(ints, cursor, idValues, segments) {
    this.ints = ints;
    this.cursor = cursor;
    this.idValues = idValues;
    this.segments = segments;
  }

  next() {
    return this.ints[this.cursor++];
  }

  /** `[count, ids...]` as the interned id values. */
  idList() {
    const ids = [];
    const count = this.next();
    for (let k = 0; k < count; k++) ids.push(this.idValues[this.next()]);
    return ids;
  }

  /** The step window's `[newCount, newIds..., seenCount, seenIds...]`, written to `state`. */
  updateStepState(state, previousGroups) {
    const newIds = this.idList();
    const seenAfter = this.idList();
    state.toolCallFilterSeenToolCallIds = seenAfter;
    state.toolCallFilterStepToolCallIds = [...previousGroups, newIds];
  }

  /** The text part of a plan `[segmentCount, segments...]`: `<toolName> result:\n<segments joined by \n>`. */
  textPart(toolName) {
    const segments = this.segments;
    const segmentCount = this.next();
    let text = segments[this.next()];
    for (let s = 1; s < segmentCount; s++) text += '\n' + segments[this.next()];
    // A template literal throws on a symbol; String() does not.
    const label = typeof toolName === 'symbol' ? String(toolName) : `${toolName}`;
    return { type: 'text', text: `${label} result:\n${text}` };
  }
}

module.exports = { AnswerReader };
