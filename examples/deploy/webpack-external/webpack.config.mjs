// Native addons stay out of the bundle: the package (and Mastra) are imported from node_modules
// at run time.
import { fileURLToPath } from 'node:url';

export default {
  mode: 'production',
  target: 'node20',
  entry: './main.mjs',
  experiments: { outputModule: true },
  output: { path: fileURLToPath(new URL('dist', import.meta.url)), filename: 'main.mjs', module: true, chunkFormat: 'module' },
  externalsType: 'module',
  externals: [/^@mastra\//, 'zod', 'mastra-native-processors'],
  optimization: { minimize: false },
};
