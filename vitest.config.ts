import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['__test__/**/*.spec.ts'],
    // Native addons are safest in forked workers; GC/exit checks run in child processes anyway.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
