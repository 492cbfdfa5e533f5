'use strict';
// `search: { mode: 'hybrid' }`: finding and loading the static embedding model.
//
// The model is a separate npm package (tens of MB, so the main package stays small). It is
// found as `search.model` (a directory holding model.bin, or the file itself) or else as
// the package, resolved from the application (process.cwd()) and then from this package.
// Each model file is read once per process: processors share the loaded model (the native
// side also shares it across worker threads).

const { createRequire } = require('node:module');
const fs = require('node:fs');
const path = require('node:path');
const { describeValue } = require('./util.js');

const MODEL_PACKAGE = 'mastra-native-processors-model-multilingual';
const MODEL_FILE = 'model.bin';

/** Loaded models by absolute model.bin path. */
const loaded = new Map();

/**
 * Checks `search.mode` and `search.model` of a processor's options. Returns the mode
 * ('compatible' | 'enhanced' | 'hybrid') and the model option (a string, or undefined).
 * `search.model` without mode 'hybrid' is an error, not ignored: a configured model that
 * silently does nothing hides a typo in the mode.
 */
function searchModeOf(search, processorName) {
  const mode = search?.mode ?? 'compatible';
  if (mode !== 'compatible' && mode !== 'enhanced' && mode !== 'hybrid') {
    throw new TypeError(
      `${processorName}: options.search.mode must be 'compatible', 'enhanced' or 'hybrid'; received ${describeValue(mode)}.`,
    );
  }
  const model = search?.model;
  if (model !== undefined) {
    if (typeof model !== 'string' || model.length === 0) {
      throw new TypeError(
        `${processorName}: options.search.model must be a non-empty string (a directory holding ${MODEL_FILE}, or the file); received ${describeValue(model)}.`,
      );
    }
    if (mode !== 'hybrid') {
      throw new TypeError(
        `${processorName}: options.search.model is only used with search.mode 'hybrid'; received mode ${describeValue(mode)}.`,
      );
    }
  }
  return { mode, model };
}

/** Where the model package is looked up: the application, then this package. */
const defaultBases = () => [path.join(process.cwd(), 'noop.js'), __filename];

/** The model package's directory, resolved from the first of `bases` that finds it. */
function packageModelDir(bases) {
  for (const base of bases) {
    let entry;
    try {
      entry = createRequire(base).resolve(MODEL_PACKAGE);
    } catch {
      continue;
    }
    const exported = require(entry);
    const dir = exported?.modelPath ?? exported?.default?.modelPath;
    return typeof dir === 'string' ? dir : path.dirname(entry);
  }
  return undefined;
}

/** An Error with a stable `code` (MASTRA_NATIVE_MODEL_NOT_FOUND / MASTRA_NATIVE_MODEL_INVALID). */
function modelError(code, message, options) {
  const error = new Error(message, options);
  error.code = code;
  return error;
}

/** Absolute path of the model file for a `search.model` value or the installed package. */
function modelFileOf(modelOption, processorName, bases = defaultBases()) {
  if (modelOption !== undefined) {
    const absolute = path.resolve(modelOption);
    let stat;
    try {
      stat = fs.statSync(absolute);
    } catch {
      throw modelError(
        'MASTRA_NATIVE_MODEL_NOT_FOUND',
        `${processorName}: options.search.model ${JSON.stringify(modelOption)} does not exist (expected a directory holding ${MODEL_FILE}, or the file).`,
      );
    }
    const file = stat.isDirectory() ? path.join(absolute, MODEL_FILE) : absolute;
    if (!fs.existsSync(file)) {
      throw modelError('MASTRA_NATIVE_MODEL_NOT_FOUND', `${processorName}: options.search.model ${JSON.stringify(modelOption)} has no ${MODEL_FILE}.`);
    }
    return file;
  }
  const dir = packageModelDir(bases);
  if (dir === undefined) {
    throw modelError(
      'MASTRA_NATIVE_MODEL_NOT_FOUND',
      `${processorName}: search.mode 'hybrid' needs the model package: npm install ${MODEL_PACKAGE} (or pass search.model, a directory holding ${MODEL_FILE}).`,
    );
  }
  return path.join(dir, MODEL_FILE);
}

/** Largest model file read (the shipped one is tens of MB): a runaway file is an error, not a read until memory runs out. */
const MAX_MODEL_BYTES = 2 ** 30;

/**
 * The model in `file`: the copy this process (any thread) already parsed, or the file read here
 * and parsed by the addon. The addon never opens the file itself (see src/semantic.rs: file
 * access from WebAssembly crashes Node). Throws an Error saying what is wrong with the file.
 */
function loadModelFile(file) {
  const { NativeSemanticModel } = require('./native.js');
  let canonical;
  try {
    canonical = fs.realpathSync(file);
  } catch (error) {
    throw new Error(`cannot read the model file ${file}: ${error.message}`, { cause: error });
  }
  const model = NativeSemanticModel.loaded(canonical);
  if (model) return model;
  // Checked before reading: a device or FIFO (e.g. /dev/zero) would never end.
  const stat = fs.statSync(canonical);
  if (!stat.isFile()) throw new Error(`cannot read the model file ${file}: not a regular file`);
  if (stat.size > MAX_MODEL_BYTES) throw new Error(`cannot read the model file ${file}: larger than ${MAX_MODEL_BYTES} bytes`);
  let bytes;
  try {
    bytes = fs.readFileSync(canonical);
  } catch (error) {
    throw new Error(`cannot read the model file ${file}: ${error.message}`, { cause: error });
  }
  return NativeSemanticModel.fromBytes(canonical, bytes);
}

/**
 * The loaded model for `search.model` (or the package), read once per process per file.
 * Throws an Error naming the option or the package when it is missing or not a model.
 */
function loadSemanticModel(modelOption, processorName) {
  const file = modelFileOf(modelOption, processorName);
  let model = loaded.get(file);
  if (model) return model;
  try {
    model = loadModelFile(file);
  } catch (error) {
    const source = modelOption !== undefined ? 'options.search.model' : `the ${MODEL_PACKAGE} package`;
    throw modelError('MASTRA_NATIVE_MODEL_INVALID', `${processorName}: cannot load the search model from ${source}: ${error.message}`, { cause: error });
  }
  loaded.set(file, model);
  return model;
}

module.exports = { searchModeOf, loadSemanticModel, loadModelFile, modelFileOf, MODEL_PACKAGE };
