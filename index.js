'use strict';
// Package entry (CommonJS). Each processor lives in js/<name>.js over the native binding.
const { ToolSearchProcessor } = require('./js/tool-search.js');
const { ToolCallFilter } = require('./js/tool-call-filter.js');
const { SkillSearchProcessor } = require('./js/skill-search.js');

module.exports = {
  ToolSearchProcessor,
  ToolCallFilter,
  SkillSearchProcessor,
};
