// The client-sent history of the Agent-level ToolCallFilter specs, as AI SDK messages: an earlier
// turn with a weather and a search call and their results, then the user's next question.
export function clientHistory(nextQuestion: string) {
  return [
    { role: 'user', content: 'What is the weather in NYC?' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', toolCallId: 'hist-weather', toolName: 'weather', input: { city: 'NYC' } },
        { type: 'tool-call', toolCallId: 'hist-search', toolName: 'search', input: { q: 'nyc' } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'hist-weather', toolName: 'weather', output: { type: 'json', value: { forecast: 'Sunny in NYC' } } },
        { type: 'tool-result', toolCallId: 'hist-search', toolName: 'search', output: { type: 'json', value: { hits: 3 } } },
      ],
    },
    { role: 'assistant', content: 'It is sunny in NYC.' },
    { role: 'user', content: nextQuestion },
  ];
}
