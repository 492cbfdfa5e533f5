'use strict';
// ToolSearchProcessor lives in js/tool-search/ (index.js the processor; messages.js, options.js,
// catalog.js and state.js beside it). This path stays the entry, next to its types
// (tool-search.d.ts), for index.js and every importer.
module.exports = require('./tool-search/index.js');
