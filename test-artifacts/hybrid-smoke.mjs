// Runs inside a fresh project that installed mastra-native-processors from the local registry, with
// or without mastra-native-processors-model-multilingual: a real ToolSearchProcessor in
// search.mode 'hybrid' over English tool descriptions, asked in Chinese, Japanese, Korean and in
// English words no description uses. Prints one JSON line: whether the model package resolves, the
// construction error (without it), and per request the top hits in 'hybrid' and in 'enhanced'.
import { createRequire } from 'node:module';
import { MessageList } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor } from 'mastra-native-processors';

const require = createRequire(import.meta.url);
const MODEL_PACKAGE = 'mastra-native-processors-model-multilingual';

const tools = {};
const add = (id, description) => (tools[id] = createTool({ id, description, execute: async () => ({ ok: true }) }));
// Filler in the style of a large integration catalog: many near-identical CRUD tools.
for (const service of ['github', 'jira', 'slack', 'stripe', 'notion'])
  for (const action of ['create', 'update', 'delete', 'list'])
    for (const object of ['issue', 'ticket', 'message', 'invoice', 'page']) add(`${service}_${action}_${object}`, `${action} a ${object} in ${service}`);
add('get_weather', 'Get the current weather forecast and temperature for a city');
add('send_email', 'Send an email to a recipient with a subject and body');
add('translate_text', 'Translate text from one language into another');
add('book_flight', 'Book an airline flight between two airports on a date');
add('convert_currency', 'Convert an amount of money from one currency to another at the current exchange rate');

// [request, the tool that must come first]
const REQUESTS = [
  ['明天上海的天气怎么样', 'get_weather'],
  ['東京の天気を教えて', 'get_weather'],
  ['동료에게 이메일을 보내 주세요', 'send_email'],
  ['来週の大阪行きの飛行機を予約したい', 'book_flight'],
  ['把这段话翻译成英语', 'translate_text'],
  ['will it rain tomorrow', 'get_weather'],
];

async function topHits(processor, query) {
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', 'hybrid-smoke');
  const { tools: stepTools } = await processor.processInputStep({
    tools: {},
    messageList: new MessageList({ threadId: 'hybrid-smoke', resourceId: 'r' }),
    requestContext,
    messages: [],
    stepNumber: 0,
  });
  const { results } = await stepTools.search_tools.execute({ query }, {});
  return results.map((r) => r.name);
}

let modelResolved = null;
try {
  modelResolved = require.resolve(MODEL_PACKAGE);
} catch {
  // not installed: 'hybrid' must refuse with an error naming the package
}

const out = { node: process.version, arch: process.arch, modelResolved, constructError: null, requests: [] };
let hybrid;
try {
  const t0 = performance.now();
  hybrid = new ToolSearchProcessor({ tools, search: { mode: 'hybrid', topK: 3 } });
  out.constructMs = Math.round(performance.now() - t0);
} catch (error) {
  out.constructError = { name: error.name, message: error.message };
}
if (hybrid) {
  const enhanced = new ToolSearchProcessor({ tools, search: { mode: 'enhanced', topK: 3 } });
  for (const [query, want] of REQUESTS)
    out.requests.push({ query, want, hybrid: await topHits(hybrid, query), enhanced: await topHits(enhanced, query) });
  hybrid.dispose();
  enhanced.dispose();
}
console.log(JSON.stringify(out));
