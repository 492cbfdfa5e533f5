'use strict';
// What the model reads from ToolSearchProcessor: system messages, meta-tool descriptions and
// schemas, and the meta-tools' result messages. Every string is the reference's (or, for
// what is ours, fixed by the specs): change none without a reason.

const { perZod } = require('../host-modules.js');

/** The meta-tools' keys (never indexed, and kept visible when request tools are searchable). */
const META_TOOL_NAMES = new Set(['search_tools', 'load_tool']);
/** The `type` of the receipt search_tools returns for what it loaded (storage 'context'). */
const RECEIPT_TYPE = 'tool-search-auto-load';

const SYSTEM_MESSAGE =
  'To discover available tools, call search_tools with a keyword query. ' +
  'To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. ' +
  'Tools must be loaded before they can be used.';
const SYSTEM_MESSAGE_AUTO_LOAD =
  'To discover available tools, call search_tools with a keyword query. ' +
  'Matching tools are loaded automatically and become available on your next turn — ' +
  'there is no separate load step. After searching, use the tool directly.';
const SEARCH_DESCRIPTION =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools with their names and descriptions. ' +
  'After finding a useful tool, use load_tool to make it available.';
const SEARCH_DESCRIPTION_AUTO_LOAD =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools, which are loaded automatically and ' +
  'become available on your next turn — no separate load step is required.';
// injectCatalog (host 1.67+; ours on every host): the header before the tool list.
const CATALOG_HEADER =
  'The following tools are available to load. Call load_tool with a toolName or toolNames array ' +
  'to add one or more before using them — no search step is required. ' +
  'search_tools is also available if you need to rediscover tools by keyword.';
const CATALOG_HEADER_AUTO_LOAD =
  'The following tools are available. Call search_tools with a keyword to load one — ' +
  'matching tools are loaded automatically and become available on your next turn.';
const CATALOG_LIST_INTRO = '\n\nAvailable tools:\n';
const LOAD_DESCRIPTION =
  'Load one or more tools into your context. ' +
  'Call this after finding tools with search_tools. ' +
  'Once loaded, tools will be available for use. ' +
  'Pass a single toolName or an array of toolNames to load multiple tools at once.';

// Schemas are immutable, so they are built once per zod instance instead of on every step.
const schemasFor = perZod((z) => {
  const searchInput = z.object({
    query: z.string().describe('Search keywords (e.g., "weather", "github issue", "database query")'),
  });
  const searchResult = z.object({ name: z.string(), description: z.string(), score: z.number() });
  const searchOutput = z.object({ results: z.array(searchResult), message: z.string() });
  const searchOutputWithReceipt = z.object({
    results: z.array(searchResult),
    message: z.string(),
    activation: z
      .object({ type: z.literal(RECEIPT_TYPE), version: z.literal(1), loaded: z.array(z.string()) })
      .optional(),
  });
  const loadInput = z.object({
    toolName: z.string().optional().describe('The exact name of a tool to load (from search results)'),
    toolNames: z
      .array(z.string())
      .optional()
      .describe('Array of exact tool names to load in one call (from search results)'),
  });
  const loadOutput = z.object({
    success: z.boolean(),
    message: z.string(),
    loadedCount: z.number().optional(),
    toolName: z.string().optional(),
    loaded: z.array(z.string()).optional(),
    notFound: z.array(z.string()).optional(),
    alreadyLoaded: z.array(z.string()).optional(),
  });
  return { searchInput, searchOutput, searchOutputWithReceipt, loadInput, loadOutput };
});

/** The system messages of a step: the instruction, and with injectCatalog the catalog's. */
function systemMessageFor(autoLoad) {
  return autoLoad ? SYSTEM_MESSAGE_AUTO_LOAD : SYSTEM_MESSAGE;
}

function catalogMessage(autoLoad, list) {
  return (autoLoad ? CATALOG_HEADER_AUTO_LOAD : CATALOG_HEADER) + CATALOG_LIST_INTRO + list;
}

function searchDescriptionFor(autoLoad) {
  return autoLoad ? SEARCH_DESCRIPTION_AUTO_LOAD : SEARCH_DESCRIPTION;
}

/** A tool as the catalog listing and the preload message show it. */
function toolLine(name, description) {
  return description ? `- \`${name}\`: ${description}` : `- \`${name}\``;
}

/**
 * The system message naming this step's preloaded tools. Names only: a tool's description may
 * come from an untrusted server, and quoting it here would lend it a system message's
 * authority (the tool definitions the model gets carry it anyway).
 */
function preloadMessage(tools) {
  const lines = tools.map(({ name }) => toolLine(name));
  return (
    "These tools were loaded for the user's request and can be called directly now, without search_tools or load_tool:\n" +
    lines.join('\n') +
    '\nUse search_tools for anything else.'
  );
}

// search_tools results -------------------------------------------------------------------

function noToolsFound(query) {
  return { results: [], message: `No tools found matching "${query}". Try different keywords.` };
}

/** Without autoLoad, when nothing was loaded for the model. */
function foundToolsMessage(count) {
  return `Found ${count} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`;
}

/** search_tools' message when preload loaded some of its `count` results (`loaded`, names). */
function searchLoadedMessage(count, loaded) {
  const them = loaded.length === 1 ? 'it' : 'them';
  return (
    `Found ${count} tool(s). Loaded ${loaded.join(', ')} for you: call ${them} directly on your next turn.` +
    (loaded.length < count ? ' Use load_tool with an exact toolName or a toolNames array to make the others available.' : '')
  );
}

/** autoLoad, when the filter's 'load' phase allowed none of the hits. */
function noToolsLoadable(query) {
  return { results: [], message: `No tools available to load matching "${query}". Try different keywords.` };
}

/** autoLoad, when the shared store did not take the names. */
function autoLoadUnavailableMessage(count) {
  return `Found ${count} tool(s) but could not load them right now (loaded-tool state is unavailable). Try again.`;
}

/** autoLoad: `names` of the results, `someLoadedBefore` when not all were new. */
function autoLoadedMessage(names, someLoadedBefore) {
  return (
    `Found and loaded ${names.length} tool(s): ${names.join(', ')}. ` +
    `They are available on your next turn — call them directly.` +
    (someLoadedBefore ? ' Some were already loaded.' : '')
  );
}

/** The receipt of what a search loaded, read back by storage 'context' (state.js). */
function receiptOf(loaded) {
  return { type: RECEIPT_TYPE, version: 1, loaded };
}

// load_tool results ----------------------------------------------------------------------

/** load_tool called with an empty toolNames array and no toolName. */
function emptyToolNames() {
  return { success: false, message: 'toolNames array must not be empty.' };
}

/** load_tool called with neither toolName nor toolNames. */
function noToolName() {
  return { success: false, message: 'You must provide either toolName (string) or toolNames (array) to load.' };
}

/**
 * load_tool's result for one `toolName` (no toolNames array), from the outcome lists of the
 * load; `suggestions` only when it was not found.
 */
function singleLoadResult(name, { unavailable, notFound, alreadyLoaded }, suggestions) {
  if (unavailable.length > 0) {
    return {
      success: false,
      message: `Tool "${name}" could not be loaded right now (loaded-tool state is unavailable). Try again.`,
      toolName: name,
    };
  }
  if (notFound.length > 0) {
    const message =
      `Tool "${name}" not found.` +
      (suggestions.length > 0
        ? ` Did you mean: ${suggestions.slice(0, 3).join(', ')}?`
        : ' Use search_tools to find available tools.');
    return { success: false, message, toolName: name };
  }
  if (alreadyLoaded.length > 0) {
    return { success: true, message: `Tool "${name}" is already loaded and available.`, toolName: name };
  }
  return {
    success: true,
    message: `Tool "${name}" loaded successfully. It will be available on your next turn.`,
    toolName: name,
  };
}

/** load_tool's result for a toolNames array, from the outcome lists of the load. */
function batchLoadResult({ loaded, alreadyLoaded, notFound, unavailable }) {
  const parts = [];
  if (loaded.length > 0) parts.push(`Loaded: ${loaded.join(', ')} — available on your next turn`);
  if (alreadyLoaded.length > 0) parts.push(`Already loaded: ${alreadyLoaded.join(', ')}`);
  if (notFound.length > 0) parts.push(`Not found: ${notFound.join(', ')}`);
  if (unavailable.length > 0) parts.push(`Not loaded (state unavailable, try again): ${unavailable.join(', ')}`);
  return {
    success: notFound.length === 0 && unavailable.length === 0,
    message: parts.join(' | '),
    loadedCount: loaded.length,
    loaded: loaded.length > 0 ? loaded : undefined,
    notFound: notFound.length > 0 ? notFound : undefined,
    alreadyLoaded: alreadyLoaded.length > 0 ? alreadyLoaded : undefined,
  };
}

module.exports = {
  META_TOOL_NAMES,
  RECEIPT_TYPE,
  LOAD_DESCRIPTION,
  schemasFor,
  systemMessageFor,
  catalogMessage,
  searchDescriptionFor,
  toolLine,
  preloadMessage,
  noToolsFound,
  foundToolsMessage,
  searchLoadedMessage,
  noToolsLoadable,
  autoLoadUnavailableMessage,
  autoLoadedMessage,
  receiptOf,
  emptyToolNames,
  noToolName,
  singleLoadResult,
  batchLoadResult,
};
