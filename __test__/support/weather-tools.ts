// The tool catalog of the Agent-level tool-search runs on a host: five filler tools and
// get_weather, built with that host's createTool and zod; get_weather records each city it ran for.
import type { Host } from './hosts';

export function weatherToolsFor(host: Host, executed: string[], weatherDescription: string) {
  const { createTool } = host.tools;
  const { z } = host.zod;
  const filler = Object.fromEntries(
    ['calendar_schedule', 'send_email', 'github_create_issue', 'translate_text', 'stock_quote'].map((id) => [
      id,
      createTool({ id, description: `${id.replace(/_/g, ' ')} for the user`, execute: async () => ({ ran: id }) } as any),
    ]),
  );
  const getWeather = createTool({
    id: 'get_weather',
    description: weatherDescription,
    inputSchema: z.object({ city: z.string() }),
    execute: async (input: any) => {
      const city = input.city ?? input.context?.city;
      executed.push(city);
      return { city, temperature: 21, conditions: 'sunny' };
    },
  });
  return { ...filler, get_weather: getWeather };
}
