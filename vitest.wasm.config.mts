// `npm run test:wasm`: the suite on the WebAssembly build (NAPI_RS_FORCE_WASI=error, set by the
// script), host matrix included. Left out, as they test the native binaries themselves: the
// native loader's error paths (with the WebAssembly build present, a missing native binary is
// not an error: the loader takes the fallback) and the test-runner integrations (Jest, node:test,
// Bun), which load the native binary in their own processes; and the churn bounds, which are the
// native build's. On WebAssembly, measured with bench/churn.mjs: RSS keeps its high-water mark
// (linear memory is never given back) and moves between 133 and 167 MB over 1M threads with no
// trend, above the native bound of +12 MB; memoryStore()'s heap reads 40 MB between event-loop
// turns (objects the runtime frees on a later turn) and 17.3-17.6 MB after one, flat from 50,000
// to 600,000 threads: a plateau, not a leak (README, Supported platforms).
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ['__test__/packaging/native-loader.spec.ts', '__test__/packaging/test-runners.spec.ts', '__test__/binding/churn.spec.ts', '**/node_modules/**'],
      // WebAssembly runs several times slower than the native build.
      testTimeout: 300_000,
      hookTimeout: 120_000,
    },
  }),
);
