// The Docker recipe's app: an HTTP server whose GET /run runs a real Mastra Agent with the three
// processors of mastra-native-processors, and GET /health answers the image's HEALTHCHECK.
// The model is scripted (no network, no API key): it searches the skills, loads the weather skill,
// then searches the 101 tools of ./agent.mjs (the deploy recipes' shared catalog), loads the
// weather tool and calls it. ToolCallFilter keeps only the latest tool step in its prompt.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { LocalFilesystem, Workspace } from '@mastra/core/workspace';
import { SkillSearchProcessor, ToolCallFilter, ToolSearchProcessor } from 'mastra-native-processors';
import { catalog } from './agent.mjs';

const SKILL_MARKER = 'answer in one line';

function toolResultsIn(prompt) {
  return prompt.flatMap((m) => (m.role === 'tool' ? m.content.filter((p) => p.type === 'tool-result') : []));
}

/** Reads the last tool result in its prompt, as an LLM would, and records what each step saw. */
function scriptedModel(steps) {
  return {
    specificationVersion: 'v2',
    provider: 'docker-recipe',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate({ tools = [], prompt }) {
      const results = toolResultsIn(prompt);
      const last = results.at(-1) && { name: results.at(-1).toolName, output: results.at(-1).output?.value ?? results.at(-1).output };
      const system = prompt.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
      steps.push({ offered: tools.map((t) => t.name).sort(), toolResults: results.length, skillInPrompt: system.includes(SKILL_MARKER) });
      const next = {
        undefined: () => ({ toolName: 'search_skills', input: { query: 'weather in a city' } }),
        search_skills: () => ({ toolName: 'load_skill', input: { skillName: last.output.results[0].name } }),
        load_skill: () => ({ toolName: 'search_tools', input: { query: 'weather in a city' } }),
        search_tools: () => ({ toolName: 'load_tool', input: { toolName: last.output.results[0].name } }),
        load_tool: () => ({ toolName: last.output.toolName, input: { city: 'Lisbon' } }),
      }[last?.name];
      const call = next?.();
      const n = steps.length;
      return {
        content: call
          ? [{ type: 'tool-call', toolCallId: `call-${n}`, toolName: call.toolName, input: JSON.stringify(call.input) }]
          : [{ type: 'text', text: `${last.output.city}: ${last.output.temperatureC} C, ${last.output.conditions}` }],
        warnings: [],
        finishReason: call ? 'tool-calls' : 'stop',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        response: { id: `r-${n}`, modelId: 'scripted', timestamp: new Date() },
      };
    },
    async doStream() {
      throw new Error('generate() only');
    },
  };
}

/** The .node files mapped into this process (Linux). */
function loadedAddons() {
  const paths = readFileSync('/proc/self/maps', 'utf8').split('\n').map((line) => line.split(/\s+/).slice(5).join(' '));
  return [...new Set(paths.filter((p) => p.endsWith('.node')))];
}

const workspace = new Workspace({ filesystem: new LocalFilesystem({ basePath: import.meta.dirname }), skills: ['skills'] });

async function runAgent() {
  const steps = [];
  const toolSearch = new ToolSearchProcessor({ tools: catalog(), search: { topK: 3 } });
  const agent = new Agent({
    id: 'docker-agent',
    name: 'Docker agent',
    instructions: 'Find the right skill and tool, load them, and use them.',
    model: scriptedModel(steps),
    inputProcessors: [new ToolCallFilter({ filterAfterToolSteps: 1 }), new SkillSearchProcessor({ workspace }), toolSearch],
  });
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', `docker-${Date.now()}`);
  try {
    const result = await agent.generate('What is the weather in Lisbon?', { maxSteps: 8, requestContext });
    return { text: result.text, steps, addons: loadedAddons(), uid: process.getuid() };
  } finally {
    toolSearch.dispose();
  }
}

const server = createServer(async (req, res) => {
  const reply = (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  try {
    if (req.url === '/health') reply(200, { ok: true });
    else if (req.url === '/run') reply(200, await runAgent());
    else reply(404, { error: 'not found' });
  } catch (error) {
    reply(500, { error: String(error?.stack ?? error) });
  }
});
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '0.0.0.0', () => console.log(`listening on ${JSON.stringify(server.address())}`));
// `docker stop` sends SIGTERM; node as PID 1 has no default handler for it.
process.on('SIGTERM', () => server.close(() => process.exit(0)));
