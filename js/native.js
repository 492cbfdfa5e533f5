'use strict';
// Loads the native addon through the napi-generated loader (../binding.js, rewritten by every
// `napi build`, so not edited by hand). When no binary can be loaded, napi's own error only says
// "Cannot find native binding … npm has a bug related to optional dependencies"; this wrapper
// replaces it with one that names the platform, lists the supported ones and says what to do.
// The loader's error (with every load attempt in its cause chain) is kept as `cause`.
//
// The loader falls back to the WebAssembly build (or takes it with NAPI_RS_FORCE_WASI) when it is
// installed. Typed arrays cross into WebAssembly as copies, so the few calls that fill a caller's
// buffer go through variants that return theirs there (forCopiedArrays); nothing else differs.

const { nativeLoadError } = require('./native-error.js');

let binding;
try {
  binding = require('../binding.js');
} catch (e) {
  throw nativeLoadError(e);
}

/** `binding` with its buffer-filling calls replaced by copying ones (the WebAssembly build). */
function forCopiedArrays(loaded) {
  const { NativeToolCatalog, nativeToolCallFilterDecide, nativeToolCallFilterDecidePrompt } = loaded;
  // searchInto writes (handle, docHandle, score) triplets into `out`: the same from search().
  Object.defineProperty(NativeToolCatalog.prototype, 'searchInto', {
    configurable: true,
    writable: true,
    value: function searchInto(query, topK, minScore, out) {
      const hits = this.search(query, topK, minScore, false);
      const fit = Math.min(hits.handles.length, Math.floor(out.length / 3));
      for (let i = 0; i < fit; i++) {
        out[3 * i] = hits.handles[i];
        out[3 * i + 1] = hits.docHandles[i];
        out[3 * i + 2] = hits.scores[i];
      }
      return hits.handles.length;
    },
  });
  // The ToolCallFilter deciders fill `actions` and `ints` (arguments 8 and 9): with `copyOut`
  // they return theirs instead, copied back here.
  const copying = (decide) =>
    function decideCopied(...args) {
      const decided = decide(...args.slice(0, 10), true);
      args[8].set(decided.actions);
      args[9].set(decided.ints);
      return decided.written;
    };
  return {
    ...loaded,
    nativeToolCallFilterDecide: copying(nativeToolCallFilterDecide),
    nativeToolCallFilterDecidePrompt: copying(nativeToolCallFilterDecidePrompt),
  };
}

module.exports = binding.__napiBindingTarget === 'wasm32-wasi' ? forCopiedArrays(binding) : binding;
