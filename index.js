'use strict';
// Package entry (CommonJS). Each processor lives in js/<name>.js over the native binding.
const { ToolSearchProcessor } = require('./js/tool-search.js');

module.exports = {
  ToolSearchProcessor,
};
