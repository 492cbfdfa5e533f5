// Runs inside a fresh project that installed mastra-native-processors from the local registry:
// a real Mastra Agent (scripted model, no network) searches a tool catalog, loads the best match and
// uses it, with ToolCallFilter in the same pipeline. Prints one JSON line: what ran and which native
// binary (or WebAssembly build) the process actually loaded.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor, ToolCallFilter } from 'mastra-native-processors';
// The deploy recipes' catalog and scripted model (examples/deploy/shared/agent.mjs, copied beside).
import { catalog, scriptedModel } from './agent.mjs';

const require = createRequire(import.meta.url);

/**
 * The shared libraries this process loaded, and the glibc version when it runs on glibc. Node's
 * process report lists them; Bun (an empty list) and Deno (no such field) do not, so on Linux the
 * process's memory map is read instead, and elsewhere the addons in require.cache are taken.
 */
function loadedLibraries() {
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : undefined;
  if (Array.isArray(report?.sharedObjects) && report.sharedObjects.length > 0) return { objects: report.sharedObjects, glibcRuntime: report.header?.glibcVersionRuntime ?? null };
  if (process.platform === 'linux' && existsSync('/proc/self/maps')) {
    const paths = readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .map((line) => line.split(/\s+/).slice(5).join(' '))
      .filter((p) => p.startsWith('/'));
    const objects = [...new Set(paths)];
    const glibc = objects.some((f) => /\/libc\.so/.test(f)) && !objects.some((f) => /musl/.test(f));
    return { objects, glibcRuntime: glibc ? report?.header?.glibcVersionRuntime ?? 'unknown' : null };
  }
  return { objects: Object.keys(require.cache ?? {}), glibcRuntime: report?.header?.glibcVersionRuntime ?? null };
}

const tools = catalog();
const offered = [];
const model = scriptedModel(offered);

const toolSearch = new ToolSearchProcessor({ tools, search: { topK: 3 } });
const agent = new Agent({
  id: 'artifact-agent',
  name: 'Artifact agent',
  instructions: 'Find the right tool, load it, and use it.',
  model,
  inputProcessors: [new ToolCallFilter({ exclude: ['nothing_to_filter'] }), toolSearch],
});
const requestContext = new RequestContext();
requestContext.set('mastra__threadId', 'artifact-thread');
const result = await agent.generate('What is the weather in Lisbon?', { maxSteps: 6, requestContext });
toolSearch.dispose();

const { objects, glibcRuntime } = loadedLibraries();
const nativeFiles = objects.filter((f) => f.endsWith('.node'));
const entry = require.resolve('mastra-native-processors');
// What the package's generated loader (binding.js, already loaded: the same module instance) took:
// 'native' or 'wasm32-wasi'; and the WebAssembly loaders this process ran, if any.
const bindingTarget = createRequire(entry)('./binding.js').__napiBindingTarget;
const wasiLoaders = Object.keys(require.cache ?? {}).filter((f) => f.endsWith('.wasi.cjs'));
console.log(
  JSON.stringify({
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    glibcRuntime,
    libcObjects: objects.filter((f) => /ld-musl|libc\.musl|libc\.so/.test(f)),
    entry,
    nativeFiles,
    bindingTarget,
    wasiLoaders,
    offered,
    text: result.text,
  }),
);
