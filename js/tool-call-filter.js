'use strict';
// ToolCallFilter lives in ./tool-call-filter/ (index.js says which file holds what); this path
// stays for the requires of index.js and bench/.
module.exports = require('./tool-call-filter/index.js');
