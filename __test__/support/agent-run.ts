// Runs a real Mastra Agent of a given host with a scripted model and a real LibSQL file store
// (@mastra/memory + @mastra/libsql), turn by turn on one thread, and returns what the model
// was offered and sent at every step, what each turn returned, and the thread as stored.
// Run the same script once with the host's own processor and once with ours, then compare.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Host } from './hosts';
import { scriptedModel, type ModelCall, type ScriptStep } from './scripted-model';

export type AgentRunOptions = {
  /** Builds the processors for this run (called once per run, so each run has fresh state). */
  inputProcessors: () => any[];
  tools?: Record<string, any>;
  /** One model step per entry, shared across all turns (the model's step counter keeps going). */
  script: ScriptStep[];
  /** Each turn's input: a user string or AI SDK messages. */
  turns: Array<string | any[]>;
  threadId?: string;
  resourceId?: string;
  /** Extra generate() options per turn (e.g. requestContext). */
  generateOptions?: (turn: number) => Record<string, unknown>;
  maxSteps?: number;
  instructions?: string;
  /** Extra Agent constructor options (e.g. workspace). */
  agentOptions?: Record<string, unknown>;
  /** false: no memory at all (no storage). Default: a fresh LibSQL file store. */
  memory?: boolean;
};

export type AgentRunResult = {
  calls: ModelCall[];
  /** Each turn's final text. */
  texts: string[];
  /** Each turn's tool results (toolName + result), in order. */
  toolResults: Array<Array<{ toolName: string; result: unknown }>>;
  /** The thread as the store holds it after the last turn, without ids and timestamps. */
  stored: StoredMessage[];
};

export type StoredMessage = { role: string; parts: unknown[]; content?: unknown };

/** A JSON copy with message creation times zeroed: prompts carry them; all else must match exactly. */
export function stable(value: unknown): any {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === 'createdAt' ? 0 : v)));
}

/** Drops what differs run to run (ids, timestamps) and keeps what the user would see. */
export function normalizeStored(messages: any[]): StoredMessage[] {
  return messages.map((m) => {
    const content = m.content ?? {};
    const parts = Array.isArray(content.parts) ? content.parts.map(stripVolatile) : [];
    const out: StoredMessage = { role: m.role, parts };
    if (typeof content.content === 'string') out.content = content.content;
    return out;
  });
}

function stripVolatile(value: any): any {
  if (Array.isArray(value)) return value.map(stripVolatile);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'id' || key === 'createdAt' || key === 'updatedAt' || key === 'timestamp') continue;
    out[key] = stripVolatile(v);
  }
  return out;
}

export async function runAgent(host: Host, options: AgentRunOptions): Promise<AgentRunResult> {
  const calls: ModelCall[] = [];
  const threadId = options.threadId ?? 'thread-1';
  const resourceId = options.resourceId ?? 'user-1';
  const useMemory = options.memory !== false;
  const dir = mkdtempSync(join(tmpdir(), 'mnp-agent-'));
  try {
    let memory: any;
    if (useMemory) {
      const storage = new host.libsql.LibSQLStore({ id: 'agent-run', url: `file:${join(dir, 'memory.db')}` });
      memory = new host.memory.Memory({ storage, options: { lastMessages: 50 } });
    }
    const agent = new host.agent.Agent({
      id: 'agent-run',
      name: 'agent-run',
      instructions: options.instructions ?? 'You are a helpful assistant.',
      model: scriptedModel(options.script, calls),
      tools: options.tools ?? {},
      inputProcessors: options.inputProcessors(),
      ...(memory ? { memory } : {}),
      ...(options.agentOptions ?? {}),
    });
    const texts: string[] = [];
    const toolResults: AgentRunResult['toolResults'] = [];
    for (let turn = 0; turn < options.turns.length; turn++) {
      const result = await agent.generate(options.turns[turn], {
        maxSteps: options.maxSteps ?? 6,
        ...(memory ? { memory: { thread: threadId, resource: resourceId } } : {}),
        ...(options.generateOptions?.(turn) ?? {}),
      });
      texts.push(result.text);
      const steps: any[] = result.steps ?? [];
      toolResults.push(
        steps.flatMap((s) =>
          (s.toolResults ?? []).map((r: any) => ({ toolName: r.payload?.toolName ?? r.toolName, result: r.payload?.result ?? r.output ?? r.result })),
        ),
      );
    }
    let stored: StoredMessage[] = [];
    if (memory) {
      const { messages } = await memory.recall({ threadId, resourceId, perPage: false });
      stored = normalizeStored(messages);
    }
    return { calls, texts, toolResults, stored };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
