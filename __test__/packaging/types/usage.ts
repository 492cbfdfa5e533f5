// Compiled by packaging/types.spec.ts with tsc: the public types accept what a Mastra user writes and
// reject what they must not.
import { Agent } from '@mastra/core/agent';
import {
  SkillSearchProcessor,
  ToolCallFilter,
  ToolSearchProcessor,
  type SkillSearchProcessorOptions,
  type ToolCallFilterOptions,
  type ToolSearchFilterArgs,
  type ToolSearchFilterPhase,
  type ToolSearchProcessorOptions,
  type LoadedStateStore,
  type RedisStoreClient,
  memoryStore,
  redisStore,
  redisLearnStore,
  type LearnStore,
  type LearnRecord,
} from 'mastra-native-processors';

const phase: ToolSearchFilterPhase = 'load';
const options: ToolSearchProcessorOptions = {
  tools: {},
  search: { topK: 3, minScore: 0.5, autoLoad: false, mode: 'enhanced' },
  storage: 'context',
  ttl: 0,
  includeResolvedTools: true,
  filter: async (args: ToolSearchFilterArgs) => args.phase === phase && args.toolName.length > 0,
};
const toolSearch = new ToolSearchProcessor(options);
const filterOptions: ToolCallFilterOptions = { exclude: ['weather'], filterAfterToolSteps: 2, preserveModelOutput: true };
const toolCallFilter = new ToolCallFilter(filterOptions);
declare const skillOptions: SkillSearchProcessorOptions;
const skillSearch = new SkillSearchProcessor(skillOptions);

export const agent = new Agent({
  id: 'typed',
  name: 'typed',
  instructions: 'x',
  model: 'openai/gpt-4o',
  inputProcessors: [toolSearch, toolCallFilter, skillSearch],
});

export const stats: { threadCount: number; oldestAccessTime: number | null } = new ToolSearchProcessor({ tools: {} }).getStateStats();

// @ts-expect-error storage is 'in-memory' | 'context' | a LoadedStateStore
new ToolSearchProcessor({ tools: {}, storage: 'redis' });
// A shared store (issue 11): redisStore(client) on both processors, or a custom store object.
declare const redisClient: RedisStoreClient;
const shared = redisStore(redisClient, { keyPrefix: 'app:', timeoutMs: 250 });
export const sharedTools = new ToolSearchProcessor({ tools: {}, storage: shared, ttl: 60_000 });
export const sharedSkills = new SkillSearchProcessor({ ...skillOptions, storage: memoryStore({ ttlMs: 0 }) });
const custom: LoadedStateStore = {
  load: async (_thread: string) => ['weather'],
  add: async (_thread: string, _names: readonly string[]) => {},
  clear: async () => {},
  clearAll: async () => {},
};
export const customTools = new ToolSearchProcessor({ tools: {}, storage: custom });
export const cleared: Promise<void> = (async () => {
  await sharedTools.clearState('t1');
  const s = await sharedTools.getStoreStats();
  if (s) s.threadCount.toFixed();
})();
// @ts-expect-error SkillSearchProcessor has no 'context' storage
new SkillSearchProcessor({ ...skillOptions, storage: 'context' });
// @ts-expect-error a store needs load/add/clear/clearAll
new ToolSearchProcessor({ tools: {}, storage: { load: async () => [] } });
// @ts-expect-error search.mode is 'compatible' | 'enhanced'
new ToolSearchProcessor({ tools: {}, search: { mode: 'fast' } });
// @ts-expect-error tools is required
new ToolSearchProcessor({});
// hybrid search (issue 13), with the model package or a model location
export const hybridTools = new ToolSearchProcessor({ tools: {}, search: { mode: 'hybrid', model: './models/multilingual' } });
export const hybridSkills = new SkillSearchProcessor({ ...skillOptions, search: { mode: 'hybrid' } });
// @ts-expect-error search.model is a string
new SkillSearchProcessor({ ...skillOptions, search: { mode: 'hybrid', model: 42 } });
// injectCatalog is an option in an object literal (issue 8), and a boolean
export const withCatalog = new ToolSearchProcessor({ tools: {}, injectCatalog: true, search: { autoLoad: true } });
// @ts-expect-error injectCatalog is a boolean
new ToolSearchProcessor({ tools: {}, injectCatalog: 'yes' });

// processInputStep's tools are typed (issue 10): the meta-tools' inputs and outputs, as upstream.
declare const stepArgs: Parameters<ToolSearchProcessor['processInputStep']>[0];
export async function useMetaTools() {
  const { tools } = await toolSearch.processInputStep(stepArgs);
  const found = await tools.search_tools.execute?.({ query: 'weather' }, {} as any);
  if (found && 'results' in found) found.results[0]?.score.toFixed(2);
  // @ts-expect-error search_tools takes { query: string }
  await tools.search_tools.execute?.({ q: 'weather' }, {} as any);
  const loaded = await tools.load_tool?.execute?.({ toolNames: ['weather'] }, {} as any);
  if (loaded && 'success' in loaded) loaded.loaded?.join(', ');
  const skillStep = await skillSearch.processInputStep(stepArgs);
  const skill = await skillStep.tools?.load_skill.execute?.({ skillName: 'deploy' }, {} as any);
  if (skill && 'success' in skill) skill.message.toUpperCase();
  // @ts-expect-error load_skill takes { skillName: string }
  await skillStep.tools?.load_skill.execute?.({ name: 'deploy' }, {} as any);
}

// ToolCallFilter's stage option (issue 8): 'prompt' only.
export const promptStageFilter = new ToolCallFilter({ stage: 'prompt', filterAfterToolSteps: 1 });
// @ts-expect-error stage is 'prompt' (or left out for the host's own stage)
new ToolCallFilter({ stage: 'messages' });

// Shared learning (issue 42): redisLearnStore({ client }) or a custom LearnStore; forget* are async.
export const learningTools = new ToolSearchProcessor({ tools: {}, learn: { scope: 'global', store: redisLearnStore({ client: redisClient, maxRecords: 10_000 }) } });
const learnLog: LearnRecord[] = [];
const customLearnStore: LearnStore = {
  append: async (record) => void learnLog.push(record),
  read: async (cursor) => ({ records: learnLog.slice(Number(cursor ?? 0)), cursor: String(learnLog.length) }),
  forgetResource: async (_resource, opts) => (opts?.tombstone ? learnLog.push(opts.tombstone) : 0),
  clear: async () => {},
};
export const customLearning = new ToolSearchProcessor({ tools: {}, learn: { store: customLearnStore } });
export const forgotten: Promise<number> = customLearning.forgetLearnedResource('user-1');
export const learnStoreKind: 'in-memory' | 'custom' | 'redis' | undefined = customLearning.getLearningStats()?.store;
// @ts-expect-error redisLearnStore takes { client, ... }
redisLearnStore(redisClient);

// SkillSearchProcessor learns too (learn: the same options; seed maps skill names).
declare const learningWorkspace: SkillSearchProcessorOptions['workspace'];
export const learningSkills = new SkillSearchProcessor({ workspace: learningWorkspace, preload: { onPreload: (e) => void e.skills[0]?.learned }, learn: { scope: 'global', seed: { deployment: ['ship it safely'] } } });
export const skillsForgotten: Promise<number> = learningSkills.forgetLearnedResource('user-1');
// @ts-expect-error learn.scope is 'resource' or 'global'
new SkillSearchProcessor({ workspace: learningWorkspace, learn: { scope: 'team' } });
