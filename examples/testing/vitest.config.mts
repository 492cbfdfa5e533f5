// Vitest needs nothing special: any pool works (forks, threads, vmThreads).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['**/*.test.ts'], globals: true },
});
