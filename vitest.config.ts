import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['__test__/**/*.spec.ts'],
    // A Redis-compatible server for the store specs, from a registry package when none is installed.
    globalSetup: ['__test__/support/global-setup.ts'],
    // Native addons are safest in forked workers; GC/exit checks run in child processes anyway.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
