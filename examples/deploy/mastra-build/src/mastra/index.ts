// A Mastra server whose route GET /run runs the recipes' agent (../../../shared/agent.mjs, copied
// here by test:deploy) with ToolSearchProcessor from mastra-native-processors.
import { Mastra } from '@mastra/core/mastra';
import { registerApiRoute } from '@mastra/core/server';
import { runAgent } from './agent.mjs';

export const mastra = new Mastra({
  server: {
    apiRoutes: [registerApiRoute('/run', { method: 'GET', handler: async (c) => c.json(await runAgent()) })],
  },
});
