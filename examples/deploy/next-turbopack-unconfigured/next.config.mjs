// The control for next-turbopack: Mastra's guide's setting without this package in
// serverExternalPackages. Turbopack then refuses the build ("... .node (node addon) is not
// placeable in ESM chunks"), which is why the README asks for the line.
export default {
  output: 'standalone',
  serverExternalPackages: ['@mastra/*'],
};
