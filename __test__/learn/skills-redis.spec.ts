// SkillSearchProcessor's `learn` with a shared Redis store (docs/learning.md "Skills", "Stores"):
// two processors, each with its own client (node-redis and ioredis), stand for two processes
// of a deployment; what one learns from a load_skill call preloads the skill for the other, a
// forget reaches both and the server, and a server that stops answering never fails a generation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillSearchProcessor, redisLearnStore } from '../../index.js';
import { agentTurn, skillsIn, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';
import { connectIoRedis, connectNodeRedis } from '../support/redis-client';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { eventually } from '../support/learn';

const TEACH = 'get my work in front of users without anybody noticing a hiccup';
const AGAIN = 'get our work in front of users without a hiccup please';
const LOAD_DEPLOYMENT = [{ tool: 'load_skill', input: { skillName: 'deployment' } }, { text: 'Done.' }];
const ANSWER = [{ text: 'Sure.' }];

let fx: TempWorkspace;
let server: RedisServer;
beforeAll(async () => {
  fx = tempSkillsWorkspace();
  server = await startRedisServer();
});
afterAll(async () => {
  fx?.cleanup();
  await server?.close();
});

const turn = (processor: any, text: string, script: any[], resource = 'alice') => agentTurn(processor, fx.make(), text, script, resource);


describe('SkillSearchProcessor learn: a shared Redis store', () => {
  it('what one processor learns preloads for the other (node-redis beside ioredis); a forget reaches both and the server', async () => {
    const nodeRedis = await connectNodeRedis(server.url);
    const ioredis = await connectIoRedis(server.port);
    const keyPrefix = 'skills-learn:';
    const a = new SkillSearchProcessor({ workspace: fx.make(), preload: true, learn: { store: redisLearnStore({ client: nodeRedis, keyPrefix }) } });
    const b = new SkillSearchProcessor({ workspace: fx.make(), preload: true, learn: { store: redisLearnStore({ client: ioredis, keyPrefix }) } });
    try {
      expect(skillsIn((await turn(b, AGAIN, ANSWER))[0].prompt)).not.toContain('deployment');
      await turn(a, TEACH, LOAD_DEPLOYMENT);
      expect(a.getLearningStats()).toMatchObject({ examples: 1, store: 'redis', lastOutage: null });
      await eventually(async () => (await nodeRedis.xLen(`${keyPrefix}log`)) === 1);
      expect(skillsIn((await turn(b, AGAIN, ANSWER))[0].prompt)).toEqual(['deployment']);
      expect(b.getLearningStats()).toMatchObject({ examples: 1, resources: 1, store: 'redis' });
      // scope 'resource' (the default): bob is not served by what alice taught
      expect(skillsIn((await turn(b, AGAIN, ANSWER, 'bob'))[0].prompt)).not.toContain('deployment');
      // forgetting alice in B deletes her records from Redis, and A drops them at its next step
      await expect(b.forgetLearnedResource('alice')).resolves.toBe(1);
      const left = (await nodeRedis.xRange(`${keyPrefix}log`, '-', '+')).map((e: any) => JSON.parse(e.message.r));
      expect(left.filter((r: any) => r.type === 'example')).toEqual([]);
      expect(skillsIn((await turn(a, AGAIN, ANSWER))[0].prompt)).not.toContain('deployment');
      expect(a.getLearningStats()).toMatchObject({ examples: 0 });
    } finally {
      a.dispose();
      b.dispose();
      await nodeRedis.close().catch(() => {});
      ioredis.disconnect();
    }
  });

  it('a server that stops answering: generations go on, one warning, no learning; it recovers by itself', async () => {
    const own = await startRedisServer();
    const client = await connectNodeRedis(own.url);
    const warnings: string[] = [];
    const p = new SkillSearchProcessor({ workspace: fx.make(), preload: true, learn: { store: redisLearnStore({ client, keyPrefix: 'down:', timeoutMs: 200 }) } });
    p.__registerMastra({ getLogger: () => ({ warn: (m: string) => warnings.push(m), info() {}, error() {}, debug() {} }) } as any);
    try {
      await own.stop();
      const log = await turn(p, TEACH, LOAD_DEPLOYMENT);
      expect(log.length).toBe(2);
      await turn(p, TEACH, LOAD_DEPLOYMENT);
      expect(p.getLearningStats()).toMatchObject({ examples: 0, store: 'redis', lastOutage: expect.any(String) });
      expect(warnings.filter((w) => /learning store .* failed/.test(w))).toHaveLength(1);
      // the server back (same port): the background retry ends the outage, learning resumes
      await own.restart();
      await eventually(async () => {
        await turn(p, TEACH, LOAD_DEPLOYMENT);
        return p.getLearningStats().examples === 1;
      });
      expect(warnings.filter((w) => /learning store .* failed/.test(w))).toHaveLength(1);
    } finally {
      p.dispose();
      await client.close().catch(() => {});
      await own.close();
    }
  });
});
