// Redis clients for the specs: connected node-redis and ioredis clients whose connection errors
// are left to the tests (no unhandled 'error' events), and useRedis(): a spec file's real Redis,
// a redis-server started before its tests and a connected node-redis client, both closed after
// (`useRedis().client` / `.server` are read inside tests).
import IORedis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';

import { startRedisServer, type RedisServer } from './redis-server';

/** A connected node-redis client with the client's default settings. */
export async function connectNodeRedis(url: string) {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** A connected ioredis client on loopback with the client's default settings. */
export async function connectIoRedis(port: number) {
  const client = new IORedis(port, '127.0.0.1', { lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  return client;
}

export function useRedis() {
  const state = {} as { server: RedisServer; client: ReturnType<typeof createClient> };
  beforeAll(async () => {
    state.server = await startRedisServer();
    state.client = await connectNodeRedis(state.server.url);
  });
  afterAll(async () => {
    await state.client?.close().catch(() => {});
    await state.server?.close();
  });
  return state;
}
