// A spec file's real Redis: a redis-server started before its tests and a connected node-redis
// client, both closed after. `useRedis().client` / `.server` are read inside tests.
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';

import { startRedisServer, type RedisServer } from './redis-server';

export function useRedis() {
  const state = {} as { server: RedisServer; client: ReturnType<typeof createClient> };
  beforeAll(async () => {
    state.server = await startRedisServer();
    state.client = createClient({ url: state.server.url });
    state.client.on('error', () => {});
    await state.client.connect();
  });
  afterAll(async () => {
    await state.client?.close().catch(() => {});
    await state.server?.close();
  });
  return state;
}
