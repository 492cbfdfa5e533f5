// Child process of binding-fuzz.spec.ts: calls one exported entry point of the native binding
// (a function, a static factory, a constructor, a method or a getter) with hostile argument
// lists shaped like the real calls, and prints what happened as one JSON line. The parent fails
// when this process dies by a signal or exits other than 0: a JS exception is the only allowed
// way for the binding to refuse an argument.
//
//   node __test__/support/binding-fuzz.cjs <entry> [seed] [randomCalls]
//   node __test__/support/binding-fuzz.cjs --list      # the entries, as JSON
//
// Each entry is called first with its valid baseline, then with each hostile value of each
// parameter's kind in turn (the others at baseline), then with seeded random combinations.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const binding = require('../../binding.js');
const {
  NativeContextNameStore,
  NativeLoadedNameStore,
  NativeSemanticModel,
  NativeSkillIndex,
  NativeToolCatalog,
  nativeSkillSuggestions,
  nativeToolCallFilterDecide,
  nativeToolCallFilterDecidePrompt,
  nativeToolCallFilterLayout,
  nativeWorkspaceTokens,
  longDescriptions,
} = binding;

const [entryName, seedArg, randomArg] = process.argv.slice(2);
let seed = Number(seedArg ?? 1) >>> 0;
const RANDOM_CALLS = Number(randomArg ?? 200);

/** mulberry32: a small seeded generator, so a failure can be replayed. */
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

// --- valid values ----------------------------------------------------------------------------

const MODEL_FILE = path.join(__dirname, '..', '..', 'packages', 'model-multilingual', 'model.bin');
const modelBytes = fs.readFileSync(MODEL_FILE);
const model = NativeSemanticModel.fromBytes(MODEL_FILE, modelBytes);
const KEYS = ['get_weather', 'send_email', 'search_files'];
const IDS = [null, 'mail', null];
const DESCRIPTIONS = ['Current weather for a city', 'Sends an email', 'Searches files by name'];
const PARAMS = ['city', 'to subject body', 'pattern'];

/** `key \0 id \0 description [\0 params] \0 key …` as the JS layer encodes it. */
function joined(withParams) {
  const fields = KEYS.flatMap((key, i) => (withParams ? [key, IDS[i] ?? '', DESCRIPTIONS[i], PARAMS[i]] : [key, IDS[i] ?? '', DESCRIPTIONS[i]]));
  const text = fields.join('\0');
  const bytes = Buffer.alloc(Buffer.byteLength(text) + 16);
  const length = bytes.write(text);
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), length };
}
const plain = joined(false);
const enhanced = joined(true);
const TOOLS = { keys: KEYS, ids: IDS, descriptions: DESCRIPTIONS };
const catalog = NativeToolCatalog.build({ tools: TOOLS }, {});
// A hybrid catalog and a user's-vector override of it (search.embedder), 4 values per document.
const hybridCatalog = NativeToolCatalog.build({ tools: { ...TOOLS, params: PARAMS } }, { mode: 'hybrid', validate: true }, model);
const overrideRows = new Float32Array(hybridCatalog.semanticTexts().length * 4).map((_, i) => ((i * 7) % 5) - 2);
const override = hybridCatalog.semanticOverride(overrideRows, 4, 0.5, 0.15);
const skillIndex = new NativeSkillIndex(['pdf', 'git'], ['Reads PDFs', 'Uses git'], ['Use pdftotext', 'Run git log'], [1, 0], ['ref text'], 3, false);
const hybridSkills = NativeSkillIndex.hybrid(['pdf', 'git'], ['Reads PDFs', 'Uses git'], ['Use pdftotext', 'Run git log'], [1, 0], ['ref text'], 3, model);
const skillOverride = hybridSkills.semanticOverride(new Float32Array(8).fill(1), 4, 1, 0.15);
const u32Arrays = () => [new Uint32Array(0), Uint32Array.of(0, 1), Uint32Array.of(4294967295), new Uint32Array(1 << 16), Int32Array.of(-1), new Float64Array(2), [0, 1]];

// Contents for NativeSemanticModel.fromBytes: garbage, a truncated model, a forged header, flipped bits.
const garbage = Buffer.from(Array.from({ length: 4096 }, () => int(0, 255)));
const truncated = modelBytes.subarray(0, 64);
// The real header (dim, vocab) with a vocabulary count the file cannot hold.
const forged = Buffer.from(modelBytes.subarray(0, 4096));
forged.writeUInt32LE(0xffffffff, 12);
const flippedModel = Buffer.from(modelBytes);
for (let i = 0; i < 64; i++) flippedModel[int(0, 256)] ^= 1 << int(0, 7);

// --- hostile values by kind ------------------------------------------------------------------

const generic = [undefined, null, {}, [], () => 0, Symbol('s'), 10n, true, 'text', 7, NaN, new Proxy({}, {}), Object.create(null)];
const numbers = [0, 1, -1, 2, 3, 1e9, -1e9, 4294967295, 4294967296, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 53, Number.MAX_VALUE, NaN, Infinity, -Infinity, 0.5, -0, 1e-300];
const long = 'tool '.repeat(20_000);
const strings = ['', 'a', '\uD800', 'x\uDC00y', '\uFFFD', '\0', '\0\0\0', 'search_tools', 'load_tool', long, '😀'.repeat(1000), 'é'.normalize('NFD'), ' '.repeat(100)];
const stringArrays = () => [
  [],
  ['a'],
  ['a', 'a'],
  ['\uD800', '\uDBFF'],
  ['search_tools'],
  ['', ''],
  [5],
  [null],
  [undefined],
  new Array(3),
  [{}],
  Array.from({ length: 2000 }, (_, i) => `t${i}`),
  [long],
  'abc',
  { length: 3, 0: 'a' },
];
const idArrays = () => [[], [null, null, null], [undefined, 'x', null], ['', '', ''], [5, 6, 7], ['a'], KEYS, new Array(3)];
const counts = () => [[], [0, 0], [1, 0], [2, 0], [1e9, 0], [-1, 0], [NaN, 0], [4294967295, 4294967295], [0.5, 0.5], ['1', '0']];
const byteArrays = () => [
  new Uint8Array(0),
  Uint8Array.of(0),
  Uint8Array.of(0xff, 0xfe, 0xfd),
  Uint8Array.of(0xc3),
  Uint8Array.from({ length: 1000 }, () => int(0, 255)),
  Uint8Array.from({ length: 64 }, () => pick([0, 0x61, 0x62])),
  new Uint8Array(1 << 20),
  Buffer.from('a\0\0b\0'),
  new Int32Array(4),
  new Float64Array(2),
  new ArrayBuffer(8),
  new DataView(new ArrayBuffer(8)),
  plain.bytes.subarray(0, plain.length - 1),
  plain.bytes.subarray(1),
];
const intArrays = () => [
  new Int32Array(0),
  Int32Array.of(-1),
  Int32Array.of(2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1),
  Int32Array.from({ length: 64 }, () => pick([-2, -1, 0, 1, 2, 3, 4, 7, 1000, 2 ** 31 - 1, -(2 ** 31)])),
  Int32Array.from({ length: 16 }, () => int(-1, 4)),
  new Uint8Array(8),
  new Float64Array(4),
];
const floatOut = () => [new Float64Array(0), new Float64Array(1), new Float64Array(3), new Float64Array(30), new Float32Array(9), new Int32Array(9)];
const booleans = [true, false, 0, 1, 'yes', null, undefined];
const modes = ['compatible', 'enhanced', 'hybrid', '', 'Hybrid', 'hybrid\0', 5, null, undefined];
const optionalModels = () => [...models(), undefined, null];
// Build arguments as objects: shapes the real calls never take.
const sources = () => [
  { joined: { bytes: plain.bytes, length: plain.length, count: 3 }, tools: TOOLS },
  { joined: null, tools: null },
  { joined: {} },
  { joined: { bytes: plain.bytes, length: plain.length } },
  { joined: { bytes: 'text', length: 4, count: 1 } },
  { joined: plain.bytes },
  { tools: {} },
  { tools: { keys: KEYS, ids: IDS } },
  { tools: { ...TOOLS, params: 'p' } },
  { tools: [KEYS, IDS, DESCRIPTIONS] },
  { tools: TOOLS, extra: 1 },
  Object.create({ tools: TOOLS }),
];
const optionObjects = () => [
  {},
  { mode: 'hybrid' },
  { mode: 'enhanced', validate: 'yes', acceptKeyConflicts: 1 },
  { mode: {}, validate: true },
  { validate: true, acceptKeyConflicts: true },
  new Proxy({}, { get: () => { throw new Error('trap'); } }),
];
const f32Arrays = () => [new Float32Array(0), Float32Array.of(1, 0, 0, 0), Float32Array.of(NaN, 0, 0, 0), Float32Array.of(Infinity, 1, 1, 1), new Float32Array(4), new Float32Array(1 << 16), new Float64Array(4), overrideRows, Float32Array.of(1, 2, 3)];
const overrides = () => [override, skillOverride, {}, catalog, model, null];
const models = () => [model, {}, catalog, skillIndex, new NativeLoadedNameStore()];
const catalogs = () => [catalog, {}, model, skillIndex, new NativeContextNameStore()];
const modelContents = () => [modelBytes, new Uint8Array(0), garbage, truncated, forged, flippedModel, new Uint8Array(modelBytes.buffer, modelBytes.byteOffset, 100), 'model', null, [1, 2, 3]];
const recordLists = () => [
  [],
  [{ loadTool: true, success: true, toolName: 'a', loaded: [], receipt: null }],
  [{ loadTool: false, success: true, toolName: null, loaded: ['a', 'b'], receipt: ['a'] }],
  [{ loadTool: 1, success: 'x', toolName: 5, loaded: 'a', receipt: 7 }],
  [null],
  [{}],
  Array.from({ length: 1000 }, (_, i) => ({ loadTool: i % 2 === 0, success: true, toolName: `t${i}`, loaded: [`t${i}`], receipt: null })),
];

const KINDS = {
  num: () => numbers,
  str: () => strings,
  optStr: () => [...strings, undefined, null],
  optNum: () => [...numbers, undefined, null],
  strs: stringArrays,
  ids: idArrays,
  counts,
  bytes: byteArrays,
  ints: intArrays,
  f64: floatOut,
  f32: f32Arrays,
  u32: () => u32Arrays(),
  override: overrides,
  bool: () => booleans,
  model: models,
  optModel: optionalModels,
  mode: () => modes,
  source: sources,
  options: optionObjects,
  catalog: catalogs,
  modelBytes: modelContents,
  records: recordLists,
};

// --- ToolCallFilter wire (structured, so calls get past the header checks) ---------------------

// The wire layout's numbers come from the core, as in js/tool-call-filter/layout.js.
const WIRE = nativeToolCallFilterLayout();
const small = () => pick([-2, -1, 0, 0, 1, 1, 2, 3, 4, 5, 8, 100, 2 ** 31 - 1]);
/** Mostly in `0..n-1`, sometimes out of range. */
const index = (n) => (random() < 0.85 ? int(0, Math.max(0, n - 1)) : small());
/** `total` split into `parts` counts (sometimes not adding up). */
function split(total, parts) {
  const out = new Array(parts).fill(0);
  for (let i = 0; i < total; i++) out[int(0, parts - 1)]++;
  if (random() < 0.1 && parts > 0) out[int(0, parts - 1)] += pick([-1, 1, 1000]);
  return out;
}
/** `[seen_count, seen..., group_count, (group_len, ids...)..., 0]` over `ids` interned ids. */
function stepTape(ids) {
  const seen = Array.from({ length: int(0, 3) }, () => index(ids));
  const groups = Array.from({ length: int(0, 3) }, () => Array.from({ length: int(0, 3) }, () => index(ids)));
  const out = [seen.length, ...seen, groups.length, ...groups.flatMap((g) => [g.length, ...g]), 0];
  if (random() < 0.15) out[int(0, out.length - 1)] = small();
  return Int32Array.from(out);
}
function nodeTape(nodes) {
  return Int32Array.from({ length: nodes * WIRE.NODE_STRIDE }, (_, i) => (i % WIRE.NODE_STRIDE === 0 ? int(-1, 6) : index(nodes + 2)));
}
const actionsFor = (n) => new Uint8Array(random() < 0.85 ? n : pick([0, 1, n + 64]));
const intsOut = () => new Int32Array(pick([0, 1, 8, 256, 256, 4096]));
/** A header with `fields` (`{ MODE: value, ... }` under `prefix`) followed by the excluded names. */
function headerOf(prefix, fields, exclude) {
  const namesAt = WIRE[`${prefix}EXCLUDE_NAMES`];
  const header = new Int32Array(namesAt + exclude.length);
  for (const [name, value] of Object.entries(fields)) {
    const at = WIRE[prefix + name];
    if (typeof at !== 'number') throw new Error(`no wire header field ${prefix + name}`);
    header[at] = value;
  }
  header.set(exclude, namesAt);
  return header;
}

/** Arguments of nativeToolCallFilterDecide with consistent counts and mostly in-range contents. */
function decideArgs() {
  const m = int(0, 4);
  const p = int(0, 6);
  const v = int(0, 3);
  const ids = int(0, 6);
  const nodes = int(0, 4);
  const names = int(1, 4);
  const step = stepTape(ids);
  const exclude = Array.from({ length: int(0, 3) }, () => index(names));
  const header = headerOf('HEADER_', {
    MODE: int(-1, 2),
    PRESERVE_MODEL_OUTPUT: int(0, 1),
    STEP_ENABLED: int(0, 1),
    MESSAGE_COUNT: m,
    PART_COUNT: p,
    INVOCATION_COUNT: v,
    ID_COUNT: ids,
    NAME_COUNT: random() < 0.9 ? names : pick([0, 1e6, 2 ** 31 - 1]),
    NODE_COUNT: nodes,
    STEP_LENGTH: step.length,
    EXCLUDE_COUNT: exclude.length,
  }, exclude);
  const partCounts = split(p, m);
  const invocationCounts = split(v, m).map((c) => (random() < 0.1 ? -1 : c));
  const messages = Int32Array.from(Array.from({ length: m }, (_, i) => [int(-1, 3), int(0, 7), partCounts[i], invocationCounts[i]]).flat());
  const parts = Int32Array.from(Array.from({ length: p }, () => [int(0, 5), int(-1, 4), index(ids), index(names), random() < 0.5 ? -1 : index(nodes)]).flat());
  const invocations = Int32Array.from(Array.from({ length: v }, () => [index(ids), index(names)]).flat());
  const idTruthy = Uint8Array.from({ length: ids }, () => int(0, 1));
  return [header, pick([0, 1, 2, 2, -1, NaN, Infinity, 1e9]), messages, parts, invocations, idTruthy, nodeTape(nodes), step, actionsFor(m + p + v), intsOut()];
}

/** A decider's arguments asking for its output buffers back (`copyOut`, the WebAssembly path). */
const copyingOut = (args) => [...args, true];

/** Arguments of nativeToolCallFilterDecidePrompt, likewise. */
function decidePromptArgs() {
  const m = int(0, 4);
  const p = int(0, 6);
  const ids = int(0, 6);
  const nodes = int(0, 4);
  const names = int(1, 4);
  const step = stepTape(ids);
  const exclude = Array.from({ length: int(0, 3) }, () => index(names));
  const header = headerOf('PROMPT_HEADER_', {
    MODE: int(-1, 2),
    REPLACEMENT: int(0, 3),
    PRESERVE: random() < 0.9 ? int(0, 2) : pick([-1, 3]),
    HISTORY_KNOWN: int(0, 1),
    MESSAGE_COUNT: m,
    PART_COUNT: p,
    ID_COUNT: ids,
    NAME_COUNT: random() < 0.9 ? names : pick([0, 1e6, 2 ** 31 - 1]),
    NODE_COUNT: nodes,
    STEP_LENGTH: step.length,
    EXCLUDE_COUNT: exclude.length,
    SPLIT_AFTER_KEPT_CALLS: int(0, 1),
  }, exclude);
  const partCounts = split(p, m);
  const messages = Int32Array.from(Array.from({ length: m }, (_, i) => [int(-1, 5), partCounts[i]]).flat());
  const parts = Int32Array.from(Array.from({ length: p }, () => [int(-1, 6), index(ids), index(names), int(0, 15), random() < 0.5 ? -1 : index(nodes)]).flat());
  const flags = () => Uint8Array.from({ length: ids }, () => int(0, 1));
  return [header, pick([0, 1, 2, 2, -1, NaN, Infinity, 1e9]), messages, parts, flags(), flags(), nodeTape(nodes), step, actionsFor(m + p), intsOut()];
}

// --- entry points ----------------------------------------------------------------------------

const construct = (Class) => (...args) => new Class(...args);
const statik = (Class, name) => (...args) => Class[name](...args);
const method = (receiver, name) => (...args) => receiver()[name](...args);
// The build entry points take objects: their fields are fuzzed one by one like arguments.
const buildJoined = (name) => (bytes, length, count, mode, validate, acceptKeyConflicts, withModel) =>
  NativeToolCatalog[name]({ joined: { bytes, length, count } }, { mode, validate, acceptKeyConflicts }, withModel);
const buildTools = (name) => (keys, ids, descriptions, params, mode, validate, acceptKeyConflicts, withModel) =>
  NativeToolCatalog[name]({ tools: { keys, ids, descriptions, params } }, { mode, validate, acceptKeyConflicts }, withModel);
const overlayTools = (name) => (base, keys, ids, descriptions, firstHandle, params) => NativeToolCatalog[name](base, { keys, ids, descriptions, params }, firstHandle);

const ENTRIES = {
  'NativeToolCatalog.build(joined)': { call: buildJoined('build'), params: ['bytes', 'num', 'num', 'mode', 'bool', 'bool', 'optModel'], baseline: [plain.bytes, plain.length, 3, 'compatible', true, false, undefined] },
  'NativeToolCatalog.build(joined, hybrid)': { call: buildJoined('build'), params: ['bytes', 'num', 'num', 'mode', 'bool', 'bool', 'optModel'], baseline: [enhanced.bytes, enhanced.length, 3, 'hybrid', true, false, model] },
  'NativeToolCatalog.build(tools)': { call: buildTools('build'), params: ['strs', 'ids', 'strs', 'strs', 'mode', 'bool', 'bool', 'optModel'], baseline: [KEYS, IDS, DESCRIPTIONS, PARAMS, 'enhanced', true, false, undefined] },
  'NativeToolCatalog.build(tools, hybrid)': { call: buildTools('build'), params: ['strs', 'ids', 'strs', 'strs', 'mode', 'bool', 'bool', 'optModel'], baseline: [KEYS, IDS, DESCRIPTIONS, PARAMS, 'hybrid', false, false, model] },
  'NativeToolCatalog.build(objects)': { call: statik(NativeToolCatalog, 'build'), params: ['source', 'options', 'optModel'], baseline: [{ tools: TOOLS }, {}, undefined] },
  'NativeToolCatalog.buildAsync(joined)': { call: buildJoined('buildAsync'), params: ['bytes', 'num', 'num', 'mode', 'bool', 'bool', 'optModel'], baseline: [plain.bytes, plain.length, 3, 'compatible', true, false, undefined] },
  'NativeToolCatalog.buildAsync(joined, hybrid)': { call: buildJoined('buildAsync'), params: ['bytes', 'num', 'num', 'mode', 'bool', 'bool', 'optModel'], baseline: [enhanced.bytes, enhanced.length, 3, 'hybrid', true, false, model] },
  'NativeToolCatalog.buildAsync(tools)': { call: buildTools('buildAsync'), params: ['strs', 'ids', 'strs', 'strs', 'mode', 'bool', 'bool', 'optModel'], baseline: [KEYS, IDS, DESCRIPTIONS, PARAMS, 'hybrid', true, false, model] },
  'NativeToolCatalog.buildAsync(objects)': { call: statik(NativeToolCatalog, 'buildAsync'), params: ['source', 'options', 'optModel'], baseline: [{ tools: TOOLS }, {}, undefined] },
  'NativeToolCatalog.overlay': { call: overlayTools('overlay'), params: ['catalog', 'strs', 'ids', 'strs', 'num', 'strs'], baseline: [catalog, ['extra'], [null], ['An extra tool'], 3, undefined] },
  'NativeToolCatalog.overlayAsync': { call: overlayTools('overlayAsync'), params: ['catalog', 'strs', 'ids', 'strs', 'num', 'strs'], baseline: [catalog, ['extra'], [null], ['An extra tool'], 3, undefined] },
  'NativeToolCatalog.overlay(objects)': { call: statik(NativeToolCatalog, 'overlay'), params: ['catalog', 'source', 'num'], baseline: [catalog, TOOLS, 3] },
  'NativeToolCatalog#search': { call: method(() => catalog, 'search'), params: ['str', 'num', 'num', 'bool'], baseline: ['weather', 5, 0, false] },
  'NativeToolCatalog#searchInto': { call: method(() => catalog, 'searchInto'), params: ['str', 'num', 'num', 'f64'], baseline: ['weather', 5, 0, new Float64Array(15)] },
  'NativeToolCatalog#searchWithEvidence': { call: method(() => hybridCatalog, 'searchWithEvidence'), params: ['str', 'num', 'num', 'bool'], baseline: ['weather', 5, 0, false] },
  'NativeToolCatalog#searchOver': { call: method(() => hybridCatalog, 'searchOver'), params: ['str', 'f32', 'override', 'num', 'num', 'bool'], baseline: ['weather', Float32Array.of(1, 0, 0, 0), override, 5, 0, false] },
  'NativeToolCatalog#searchWithEvidenceOver': { call: method(() => hybridCatalog, 'searchWithEvidenceOver'), params: ['str', 'f32', 'override', 'num', 'num', 'bool'], baseline: ['weather', Float32Array.of(1, 0, 0, 0), override, 5, 0, false] },
  'NativeToolCatalog#semanticOverride': {
    call: method(() => hybridCatalog, 'semanticOverride'),
    params: ['f32', 'num', 'num', 'num', 'optNum', 'optNum', 'optNum'],
    baseline: [overrideRows, 4, 0.5, 0.15, 0, 0.5, 0.5],
  },
  'NativeToolCatalog#semanticTexts': { call: (receiver) => NativeToolCatalog.prototype.semanticTexts.call(receiver), params: ['catalog'], baseline: [hybridCatalog] },
  'NativeToolCatalog#resolve': { call: method(() => catalog, 'resolve'), params: ['strs', 'bool'], baseline: [['mail', 'get_weather'], false] },
  'NativeToolCatalog#listing': { call: method(() => catalog, 'listing'), params: ['bool'], baseline: [true] },
  'NativeToolCatalog#suggestionKeys': { call: method(() => catalog, 'suggestionKeys'), params: ['str'], baseline: ['weather'] },
  'NativeToolCatalog#hubHandles': { call: method(() => catalog, 'hubHandles'), params: ['u32', 'strs'], baseline: [Uint32Array.of(0, 1), ['Get the weather', 'Send mail']] },
  'NativeToolCatalog#size': { call: (receiver) => Object.getOwnPropertyDescriptor(NativeToolCatalog.prototype, 'size').get.call(receiver), params: ['catalog'], baseline: [catalog] },
  'NativeLoadedNameStore': {
    call: (thread, names, ttl) => {
      const store = new NativeLoadedNameStore();
      store.addLoaded(thread, names);
      store.loadedNames(thread);
      store.cleanup(ttl);
      store.stats();
      store.clear(thread);
      store.clearAll();
    },
    params: ['str', 'strs', 'num'],
    baseline: ['thread-1', ['a', 'b'], 1000],
  },
  'NativeContextNameStore': {
    call: (thread, records, hasMessages, names) => {
      const store = new NativeContextNameStore();
      store.addLoaded(thread, names);
      store.loadedNames(thread, records, hasMessages);
      store.clearAll();
    },
    params: ['optStr', 'records', 'bool', 'strs'],
    baseline: ['thread-1', [{ loadTool: true, success: true, toolName: 'a', loaded: [], receipt: null }], true, ['b']],
  },
  'NativeSemanticModel.fromBytes': { call: statik(NativeSemanticModel, 'fromBytes'), params: ['str', 'modelBytes'], baseline: [MODEL_FILE, modelBytes] },
  'NativeSemanticModel.loaded': { call: statik(NativeSemanticModel, 'loaded'), params: ['str'], baseline: [MODEL_FILE] },
  'NativeSemanticModel#tokenize': { call: method(() => model, 'tokenize'), params: ['str'], baseline: ['weather in Paris'] },
  'NativeSemanticModel#embed': { call: method(() => model, 'embed'), params: ['str'], baseline: ['weather in Paris'] },
  'NativeSemanticModel#sameModel': { call: method(() => model, 'sameModel'), params: ['model'], baseline: [model] },
  'NativeSemanticModel#getters': {
    call: (receiver) => ['dim', 'vocabSize', 'heapBytes'].map((name) => Object.getOwnPropertyDescriptor(NativeSemanticModel.prototype, name).get.call(receiver)),
    params: ['catalog'],
    baseline: [model],
  },
  'NativeSkillIndex()': { call: construct(NativeSkillIndex), params: ['strs', 'strs', 'strs', 'counts', 'strs', 'num', 'bool', 'bool'], baseline: [['pdf', 'git'], ['Reads PDFs', 'Uses git'], ['a', 'b'], [0, 0], [], 2, false, false] },
  'NativeSkillIndex.hybrid': { call: statik(NativeSkillIndex, 'hybrid'), params: ['strs', 'strs', 'strs', 'counts', 'strs', 'num', 'model'], baseline: [['pdf', 'git'], ['Reads PDFs', 'Uses git'], ['a', 'b'], [0, 0], [], 2, model] },
  'NativeSkillIndex#search': { call: method(() => skillIndex, 'search'), params: ['str', 'num', 'num'], baseline: ['pdf', 5, 0] },
  'NativeSkillIndex#semanticOverride': {
    call: method(() => hybridSkills, 'semanticOverride'),
    params: ['f32', 'num', 'num', 'num', 'optNum', 'optNum', 'optNum'],
    baseline: [new Float32Array(8).fill(1), 4, 1, 0.15, 0, 0.5, 0.5],
  },
  'NativeSkillIndex#searchOver': { call: method(() => hybridSkills, 'searchOver'), params: ['str', 'f32', 'override', 'num', 'num'], baseline: ['pdf', Float32Array.of(1, 0, 0, 0), skillOverride, 5, 0] },
  'NativeSkillIndex#evidence': { call: method(() => hybridSkills, 'evidence'), params: ['str', 'u32'], baseline: ['pdf', Uint32Array.of(0, 1)] },
  'NativeSkillIndex#getters': {
    call: (receiver) => ['skillCount', 'documentCount', 'termCount'].map((name) => Object.getOwnPropertyDescriptor(NativeSkillIndex.prototype, name).get.call(receiver)),
    params: ['model'],
    baseline: [skillIndex],
  },
  nativeSkillSuggestions: { call: nativeSkillSuggestions, params: ['str', 'strs', 'num'], baseline: ['pfd', ['pdf', 'git'], 3] },
  nativeWorkspaceTokens: { call: nativeWorkspaceTokens, params: ['str'], baseline: ['Hello, world'] },
  longDescriptions: { call: longDescriptions, params: ['strs'], baseline: [['Get the weather', 'Send mail']] },
  nativeToolCallFilterDecide: { call: nativeToolCallFilterDecide, params: ['ints', 'num', 'ints', 'ints', 'ints', 'bytes', 'ints', 'ints', 'bytes', 'ints'], baseline: decideArgs(), structured: decideArgs },
  'nativeToolCallFilterDecide(copyOut)': { call: nativeToolCallFilterDecide, params: ['ints', 'num', 'ints', 'ints', 'ints', 'bytes', 'ints', 'ints', 'bytes', 'ints', 'bool'], baseline: copyingOut(decideArgs()), structured: () => copyingOut(decideArgs()) },
  'nativeToolCallFilterDecidePrompt(copyOut)': { call: nativeToolCallFilterDecidePrompt, params: ['ints', 'num', 'ints', 'ints', 'bytes', 'bytes', 'ints', 'ints', 'bytes', 'ints', 'bool'], baseline: copyingOut(decidePromptArgs()), structured: () => copyingOut(decidePromptArgs()) },
  nativeToolCallFilterDecidePrompt: { call: nativeToolCallFilterDecidePrompt, params: ['ints', 'num', 'ints', 'ints', 'bytes', 'bytes', 'ints', 'ints', 'bytes', 'ints'], baseline: decidePromptArgs(), structured: decidePromptArgs },
  // Methods called on an object of another class: napi must refuse, never reinterpret.
  'wrong receivers': {
    call: (receiver, name) => {
      const owner = [NativeToolCatalog, NativeSkillIndex, NativeSemanticModel, NativeLoadedNameStore, NativeContextNameStore].find((C) => name in C.prototype);
      const member = Object.getOwnPropertyDescriptor(owner.prototype, name);
      return member.get ? member.get.call(receiver) : member.value.call(receiver, 'weather', 5, 0, false);
    },
    params: ['catalog', 'member'],
    baseline: [catalog, 'search'],
  },
};
KINDS.member = () => ['search', 'searchInto', 'resolve', 'listing', 'size', 'tokenize', 'embed', 'dim', 'skillCount', 'loadedNames', 'addLoaded', 'stats', 'cleanup'];

// --- the run ---------------------------------------------------------------------------------

/** Cases that once aborted the process (`memory allocation of … failed`): each must throw. */
const MUST_THROW = {
  'NativeToolCatalog.build(joined)': [1e9, -1, 4294967295].flatMap((count) => [true, false].map((validate) => [plain.bytes, plain.length, count, 'compatible', validate, false, undefined])),
  'NativeToolCatalog.build(joined, hybrid)': [1e9, 4294967295].map((count) => [enhanced.bytes, enhanced.length, count, 'hybrid', true, false, model]),
  'NativeToolCatalog.buildAsync(joined)': [1e9, -1, 4294967295].map((count) => [plain.bytes, plain.length, count, 'compatible', true, false, undefined]),
  'NativeToolCatalog.buildAsync(joined, hybrid)': [1e9, 4294967295].map((count) => [enhanced.bytes, enhanced.length, count, 'hybrid', true, false, model]),
  'NativeSemanticModel.fromBytes': [['forged.bin', forged], ['truncated.bin', truncated], ['garbage.bin', garbage]],
};

if (entryName === '--list') {
  console.log(JSON.stringify(Object.keys(ENTRIES)));
  process.exit(0);
}
const entry = ENTRIES[entryName];
if (!entry) {
  console.error(`unknown entry ${entryName}; one of: ${Object.keys(ENTRIES).join(', ')}`);
  process.exit(2);
}

const outcome = { entry: entryName, calls: 0, returned: 0, threw: 0, nonErrorThrows: 0, mustThrow: 0, mustThrowHeld: 0 };

async function attempt(args) {
  outcome.calls++;
  try {
    await entry.call(...args);
    outcome.returned++;
    return true;
  } catch (error) {
    outcome.threw++;
    // FUZZ_ERRORS=1: tally the messages (to see which checks the random calls reach).
    if (process.env.FUZZ_ERRORS) {
      const message = String(error?.message).slice(0, 70);
      outcome.errors = { ...outcome.errors, [message]: (outcome.errors?.[message] ?? 0) + 1 };
    }
    if (!(error instanceof Error)) outcome.nonErrorThrows++;
    return false;
  }
}

async function main() {
  await attempt(entry.baseline);
  for (const args of MUST_THROW[entryName] ?? []) {
    outcome.mustThrow++;
    if (!(await attempt(args))) outcome.mustThrowHeld++;
  }
  // One parameter at a time: each value of its kind, then each generic value.
  for (let at = 0; at < entry.params.length; at++) {
    for (const value of [...KINDS[entry.params[at]](), ...generic]) {
      const args = [...entry.baseline];
      args[at] = value;
      await attempt(args);
    }
  }
  // Random combinations; the ToolCallFilter entries mostly structured (deep), sometimes raw.
  for (let i = 0; i < RANDOM_CALLS; i++) {
    let args;
    if (entry.structured && random() < 0.8) {
      args = entry.structured();
    } else {
      args = entry.params.map((kind, at) => {
        const roll = random();
        if (roll < 0.4) return entry.baseline[at];
        if (roll < 0.9) return pick(KINDS[kind]());
        return pick(generic);
      });
      if (random() < 0.1) args.push(pick(generic));
      if (random() < 0.1) args.length = int(0, args.length);
    }
    await attempt(args);
  }
  console.log(JSON.stringify(outcome));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
