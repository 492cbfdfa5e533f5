import { runAgent } from '../../../lib/agent.mjs';

export const dynamic = 'force-dynamic';

export async function GET() {
  return Response.json(await runAgent());
}
