// Native addons stay out of the bundle: the package (and Mastra) are installed next to it.
export default {
  input: 'main.mjs',
  output: { file: 'dist/main.mjs', format: 'es' },
  external: [/^@mastra\//, 'zod', 'mastra-native-processors'],
};
