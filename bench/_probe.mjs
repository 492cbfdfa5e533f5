import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { ToolSearchProcessor } from '../index.js';
const DEFS = [
  ['get_weather', 'Get the current weather and the forecast for a city'],
  ['send_email', 'Send an email message to a recipient'],
  ['calendar_schedule', 'Schedule a meeting in the calendar'],
  ['stock_quote', 'Get the latest stock price for a ticker symbol'],
  ['translate_text', 'Translate text into another language'],
];
const tools = Object.fromEntries(DEFS.map(([id, d]) => [id, createTool({ id, description: d, inputSchema: z.object({}), execute: async () => ({}) })]));
for (const mode of ['compatible', 'enhanced', 'hybrid']) {
  for (const q of ['What is the weather forecast for Lisbon?', 'Please send an email message to Bob', 'Tell me a joke about cats', 'and tomorrow?', 'Translate text into another language for me', '明天里斯本的天气怎么样？', 'email Bob about the meeting']) {
    const events = [];
    const p = new ToolSearchProcessor({ tools, search: mode === 'compatible' ? {} : { mode }, preload: { minConfidence: 0, onPreload: (e) => events.push(e) } });
    await p.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 't', resourceId: 'r' }), requestContext: new RequestContext(), messages: [{ role: 'user', content: q }], stepNumber: 0 });
    console.log(mode.padEnd(10), q.padEnd(45), JSON.stringify(events[0]?.tools ?? []));
    p.dispose();
  }
}
