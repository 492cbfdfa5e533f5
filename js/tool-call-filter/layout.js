'use strict';
// The wire layout's numbers (record strides, kind/flag/action codes, header fields), read once
// from the Rust core that defines them (crates/core/src/tool_call_filter/layout.rs): no copy of
// them lives in JS. Each module destructures the names it uses at load.

const { nativeToolCallFilterLayout } = require('../native.js');

const constants = Object.freeze(nativeToolCallFilterLayout());

// A misspelt constant must fail at load, not encode `undefined` (read as 0 by a typed array).
module.exports = new Proxy(constants, {
  get(target, name) {
    if (typeof name === 'string' && /^[A-Z][A-Z0-9_]*$/.test(name) && !Object.hasOwn(target, name)) {
      throw new Error(`ToolCallFilter wire layout has no constant ${name}`);
    }
    return target[name];
  },
});
