// ToolCallFilter follows the host, by direct calls on every host of the matrix: the host's own
// ToolCallFilter and ours, constructed with the same options, on seeded random inputs × every
// option combination (exclude, filterAfterToolSteps 0/1/2/undefined, preserveModelOutput).
// - 1.60+ hosts: processLLMRequest over whole requests (one growing prompt per model call, with
//   history tool calls, toModelOutput markers, several steps sharing `state`): results, the
//   state after every call, and the untouched input must deep-equal the host's.
// - 1.58/1.59 hosts: the default stage is processInput/processInputStep (messages deep-equal the
//   host's); with `stage: 'prompt'`, processLLMRequest on the prompt a host MessageList builds
//   from the unfiltered messages must equal the prompt the same MessageList conversion builds
//   from what the host's own filter kept.
import { isDeepStrictEqual } from 'node:util';

import { describe, expect, it } from 'vitest';

import {
  generateDbConversation,
  generateRequest,
  optionCombinations,
  prng,
  withoutCreatedAt,
} from '../support/tool-call-filter-generate';
import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';

const COMBINATIONS = optionCombinations();

function methodsOf(processor: any) {
  return {
    processInput: typeof processor.processInput,
    processInputStep: typeof processor.processInputStep,
    processLLMRequest: typeof processor.processLLMRequest,
  };
}

/** Runs one request (its prompts in order) through a filter; returns every result and state. */
async function runRequest(filter: any, prompts: any[][]) {
  const state: Record<string, unknown> = {};
  const results: unknown[] = [];
  const states: unknown[] = [];
  for (let step = 0; step < prompts.length; step++) {
    const prompt = prompts[step];
    const before = structuredClone(prompt);
    const result = await filter.processLLMRequest({
      prompt,
      state,
      stepNumber: step,
      steps: [],
      model: {},
      retryCount: 0,
      abort: () => {
        throw new Error('abort');
      },
      // 1.71 passes these as well; the filter ignores them.
      llmRequestStage: true,
      llmRequestProcessorIds: new Set(['tool-call-filter']),
    });
    if (!isDeepStrictEqual(prompt, before)) throw new Error('the input prompt was mutated');
    results.push(result);
    states.push(structuredClone(state));
  }
  return { results, states };
}

/** A fake MessageList for direct processInput/processInputStep calls. */
function fakeList(all: any[], response: any[] = []) {
  return { get: { all: { db: () => all }, response: { db: () => response } } } as any;
}

/** The prompt a host MessageList builds from these stored messages. */
async function promptOf(host: Host, messages: any[]) {
  const list = new host.agent.MessageList({ threadId: 'thread', resourceId: 'user' });
  list.addSystem('You are helpful.');
  list.add(structuredClone(messages), 'memory');
  return list.get.all.aiV5.llmPrompt();
}

describe.each(HOST_VERSIONS)('ToolCallFilter on host @mastra/core %s', (version) => {
  const host = loadHost(version);
  const HostFilter = host.processors.ToolCallFilter;
  const OurFilter = host.ours.ToolCallFilter;
  const promptStageHost = host.ourHost.host.capabilities.toolCallFilterStage === 'prompt';

  it('has the methods the host’s filter has (the runner calls what exists)', () => {
    for (const options of COMBINATIONS) {
      expect(methodsOf(new OurFilter(options))).toEqual(methodsOf(new HostFilter(options)));
      const hostFilter = new HostFilter(options);
      const ours = new OurFilter(options);
      expect({ id: ours.id, name: ours.name }).toEqual({ id: hostFilter.id, name: hostFilter.name });
      expect(ours).toBeInstanceOf(OurFilter);
    }
    const promptStage = methodsOf(new OurFilter({ stage: 'prompt' }));
    expect(promptStage).toEqual({ processInput: 'undefined', processInputStep: 'undefined', processLLMRequest: 'function' });
  });

  if (promptStageHost) {
    it('processLLMRequest equals the host’s on random requests × every option combination', async () => {
      const REQUESTS = 70;
      let changed = 0;
      let unchanged = 0;
      let texts = 0;
      for (let seed = 0; seed < REQUESTS; seed++) {
        const prompts = generateRequest(prng(seed * 7919 + 1), seed);
        for (const options of COMBINATIONS) {
          const expected = await runRequest(new HostFilter(options), prompts);
          const actual = await runRequest(new OurFilter(options), prompts);
          try {
            expect(actual).toEqual(expected);
          } catch (error) {
            throw new Error(`seed ${seed}, options ${JSON.stringify(options)}: ${(error as Error).message}`);
          }
          // `stage: 'prompt'` is the same thing here.
          expect(await runRequest(new OurFilter({ ...options, stage: 'prompt' }), prompts)).toEqual(expected);
          for (const result of expected.results as any[]) {
            if (result === undefined) unchanged++;
            else {
              changed++;
              texts += result.prompt.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((p: any) => p.type === 'text' && / result:\n/.test(p.text)).length;
            }
          }
        }
      }
      // The inputs exercise every outcome.
      expect(changed).toBeGreaterThan(1000);
      expect(unchanged).toBeGreaterThan(1000);
      expect(texts).toBeGreaterThan(100);
    });
  } else {
    it('default stage: processInput and processInputStep equal the host’s on random conversations', async () => {
      const CONVERSATIONS = 60;
      for (let seed = 0; seed < CONVERSATIONS; seed++) {
        const rng = prng(seed * 104729 + 3);
        const messages = generateDbConversation(rng, seed);
        const split = Math.max(1, messages.length - 1 - Math.floor(rng() * 2));
        for (const options of COMBINATIONS) {
          const hostFilter = new HostFilter(options);
          const ours = new OurFilter(options);
          const list = fakeList(messages, messages.slice(split));
          const expected = await hostFilter.processInput({ messages: [], messageList: list });
          expect(await ours.processInput({ messages: [], messageList: list })).toEqual(expected);
          const hostState = {};
          const ourState = {};
          for (let step = 0; step < 2; step++) {
            const expectedStep = await hostFilter.processInputStep({ messageList: list, state: hostState });
            expect(await ours.processInputStep({ messageList: list, state: ourState })).toEqual(expectedStep);
            expect(ourState).toEqual(hostState);
          }
        }
      }
    });

    it("stage: 'prompt' sends the prompt the host's own filter produces, from the unfiltered MessageList", async () => {
      const CONVERSATIONS = 30;
      let differs = 0;
      for (let seed = 0; seed < CONVERSATIONS; seed++) {
        const messages = generateDbConversation(prng(seed * 15485863 + 5), seed);
        const unfiltered = await promptOf(host, messages);
        for (const options of COMBINATIONS) {
          // What the host's filter keeps before the first model call: processInput, then (with
          // filterAfterToolSteps) processInputStep of step 0, on the same messages.
          const hostFilter = new HostFilter(options);
          let kept = await hostFilter.processInput({ messages: [], messageList: fakeList(structuredClone(messages)) });
          const step = await hostFilter.processInputStep({ messageList: fakeList(kept), state: {} });
          if (step.messages) kept = step.messages;
          const expected = await promptOf(host, kept);

          const ours = new OurFilter({ ...options, stage: 'prompt' });
          const before = structuredClone(unfiltered);
          const result = await ours.processLLMRequest({ prompt: unfiltered, state: {}, stepNumber: 0, steps: [] });
          const actual = result === undefined ? unfiltered : result.prompt;
          try {
            expect(withoutCreatedAt(actual)).toEqual(withoutCreatedAt(expected));
          } catch (error) {
            throw new Error(`seed ${seed}, options ${JSON.stringify(options)}: ${(error as Error).message}`);
          }
          expect(unfiltered).toEqual(before);
          if (!isDeepStrictEqual(withoutCreatedAt(expected), withoutCreatedAt(unfiltered))) differs++;
        }
      }
      expect(differs).toBeGreaterThan(200);
    });
  }
});
