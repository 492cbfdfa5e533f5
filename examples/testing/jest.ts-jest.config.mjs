// The same with ts-jest instead of @swc/jest (also ESM mode).
export default {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }] },
};
