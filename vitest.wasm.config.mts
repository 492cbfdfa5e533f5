// `npm run test:wasm`: the suite on the WebAssembly build (NAPI_RS_FORCE_WASI=error, set by the
// script), host matrix included. Left out, as they test the native binaries themselves: the
// native loader's error paths (with the WebAssembly build present, a missing native binary is
// not an error: the loader takes the fallback) and the test-runner integrations (Jest, node:test,
// Bun), which load the native binary in their own processes; and the churn bounds, which are the
// native build's (WebAssembly's linear memory grows and is never given back, and 1M threads' state
// ends 6 MB over the native RSS bound and the memoryStore() heap 40 MB over a 16 MB one there).
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ['__test__/native-loader.spec.ts', '__test__/test-runners.spec.ts', '__test__/churn.spec.ts', '**/node_modules/**'],
      // WebAssembly runs several times slower than the native build.
      testTimeout: 300_000,
      hookTimeout: 120_000,
    },
  }),
);
