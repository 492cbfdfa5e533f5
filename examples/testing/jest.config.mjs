// Jest must run in ESM mode (NODE_OPTIONS=--experimental-vm-modules): @mastra/core loads
// ESM-only modules that Jest's CommonJS mode cannot require on Node 20/22.
export default {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }] },
};
