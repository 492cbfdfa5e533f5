'use strict';
// Loads the native addon through the napi-generated loader (../binding.js, rewritten by every
// `napi build`, so not edited by hand). When no binary can be loaded, napi's own error only says
// "Cannot find native binding … npm has a bug related to optional dependencies"; this wrapper
// replaces it with one that names the platform, lists the supported ones and says what to do.
// The loader's error (with every load attempt in its cause chain) is kept as `cause`.

const { nativeLoadError } = require('./native-error.js');

let binding;
try {
  binding = require('../binding.js');
} catch (e) {
  throw nativeLoadError(e);
}

module.exports = binding;
