// The one line the package needs: keep it (a native addon) out of the server bundle, so Next's
// output tracing copies it, binary included, into .next/standalone.
export default {
  output: 'standalone',
  serverExternalPackages: ['mastra-native-processors'],
};
