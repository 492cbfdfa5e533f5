'use strict';
// SkillSearchProcessor lives in js/skill-search/ (index.js the processor; messages.js,
// options.js, catalog.js, tracker.js and state.js beside it). This path stays the entry, next
// to its types (skill-search.d.ts), for index.js and every importer.
module.exports = require('./skill-search/index.js');
