'use strict';
// The model is data only: callers (the Rust loader) read model.bin from this directory.
module.exports = { modelPath: __dirname };
