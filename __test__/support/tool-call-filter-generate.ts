// Seeded random inputs for the ToolCallFilter host matrix: AI SDK prompts (what processLLMRequest
// receives on 1.60+ hosts), requests as a growing sequence of prompts (one per model call, so the
// per-request state matters), and format-2 MastraDBMessage conversations (what 1.58/1.59's
// processInput receives, and what a host MessageList turns into a prompt).

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;
export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)];
export const chance = (rng: Rng, p: number) => rng() < p;

export const TOOL_NAMES = ['weather', 'search', 'calculator'] as const;

/** Every option combination the matrix runs (exclude × filterAfterToolSteps × preserveModelOutput). */
export function optionCombinations(): Array<Record<string, unknown>> {
  const excludes: Array<string[] | undefined> = [undefined, [], ['weather'], ['weather', 'search'], ['unknown-tool']];
  const windows: Array<number | undefined> = [undefined, 0, 1, 2];
  const out: Array<Record<string, unknown>> = [];
  for (const exclude of excludes) {
    for (const filterAfterToolSteps of windows) {
      for (const preserveModelOutput of [false, true]) {
        const options: Record<string, unknown> = {};
        if (exclude !== undefined) options.exclude = exclude;
        if (filterAfterToolSteps !== undefined) options.filterAfterToolSteps = filterAfterToolSteps;
        if (preserveModelOutput) options.preserveModelOutput = true;
        out.push(options);
      }
    }
  }
  return out;
}

/** A toModelOutput-style value (what `providerOptions.mastra.modelOutput` / `output` hold). */
export function modelOutputValue(rng: Rng, depth = 0): unknown {
  switch (Math.floor(rng() * (depth > 1 ? 5 : 9))) {
    case 0:
      return { type: 'text', value: pick(rng, ['Sunny, 21°C', '', 'multi\nline', '  ']) };
    case 1:
      return { type: 'json', value: pick(rng, [{ forecast: 'sunny' }, [1, 2], 'plain', 7, null]) };
    case 2:
      return { type: 'error-text', value: 'tool failed' };
    case 3:
      return { type: 'text', text: 'text field' };
    case 4:
      return pick(rng, ['bare string', 12, true, { no: 'value' }]);
    case 5:
      return { type: 'content', value: [{ type: 'text', text: 'part one' }, { type: 'text', text: '' }, { type: 'media', data: 'AAAA', mediaType: 'image/png' }] };
    case 6:
      return { type: 'content', value: [{ type: 'media', data: 'AAAA', mediaType: 'image/png' }] };
    case 7:
      return [modelOutputValue(rng, depth + 1), modelOutputValue(rng, depth + 1)];
    default:
      return { type: 'json', value: { nested: modelOutputValue(rng, depth + 1) } };
  }
}

type Ids = { next: () => string };

function idSource(rng: Rng, prefix: string): Ids {
  let n = 0;
  return {
    next: () => {
      // Mostly fresh ids; now and then a repeated one or a falsy one, as malformed histories have.
      if (n > 0 && chance(rng, 0.04)) return `${prefix}${Math.floor(rng() * n)}`;
      if (chance(rng, 0.02)) return '';
      return `${prefix}${n++}`;
    },
  };
}

function providerOptionsFor(rng: Rng, output: unknown): Record<string, unknown> | undefined {
  switch (Math.floor(rng() * 6)) {
    case 0:
    case 1:
      return { mastra: { modelOutput: output } };
    case 2:
      return { mastra: { modelOutput: null } };
    case 3:
      return { mastra: { createdAt: 1_700_000_000_000 } };
    case 4:
      return { openai: { itemId: 'x' } };
    default:
      return undefined;
  }
}

/** One model step: an assistant message with tool calls (and maybe text), then its results. */
function toolStep(rng: Rng, ids: Ids): any[] {
  const calls = 1 + Math.floor(rng() * (chance(rng, 0.3) ? 3 : 1));
  const assistant: any[] = [];
  const results: any[] = [];
  if (chance(rng, 0.4)) assistant.push({ type: 'text', text: 'Let me check.' });
  if (chance(rng, 0.1)) assistant.push({ type: 'reasoning', text: 'thinking' });
  for (let k = 0; k < calls; k++) {
    const toolName = pick(rng, TOOL_NAMES);
    const toolCallId = ids.next();
    const output = modelOutputValue(rng);
    const providerOptions = providerOptionsFor(rng, output);
    const call: any = { type: 'tool-call', toolCallId, toolName, input: { q: k } };
    if (providerOptions && chance(rng, 0.5)) call.providerOptions = providerOptions;
    assistant.push(call);
    if (chance(rng, 0.9)) {
      const result: any = { type: 'tool-result', toolCallId, toolName, output };
      if (providerOptions) result.providerOptions = providerOptions;
      results.push(result);
    }
  }
  if (chance(rng, 0.08)) {
    // A provider-executed result inside the assistant message, with no tool-call part.
    const toolName = pick(rng, TOOL_NAMES);
    const output = modelOutputValue(rng);
    assistant.push({ type: 'tool-result', toolCallId: ids.next(), toolName, output, providerOptions: providerOptionsFor(rng, output) });
  }
  const messages: any[] = [{ role: 'assistant', content: assistant }];
  if (results.length > 0) messages.push({ role: 'tool', content: results });
  return messages;
}

function textTurn(rng: Rng): any[] {
  const out: any[] = [{ role: 'user', content: [{ type: 'text', text: pick(rng, ['Hi', 'Weather?', 'And Rome?']) }] }];
  if (chance(rng, 0.7)) out.push({ role: 'assistant', content: [{ type: 'text', text: 'Sure.' }] });
  return out;
}

/**
 * A request: the prompts of its successive model calls. The first prompt is the history (turns
 * with tool steps); each later prompt appends one tool step of the current run.
 */
export function generateRequest(rng: Rng, seed: number): any[][] {
  const ids = idSource(rng, `t${seed}-`);
  const history: any[] = [{ role: 'system', content: 'You are helpful.' }];
  const turns = Math.floor(rng() * 3);
  for (let t = 0; t < turns; t++) {
    history.push(...textTurn(rng).slice(0, 1));
    const steps = Math.floor(rng() * 3);
    for (let s = 0; s < steps; s++) history.push(...toolStep(rng, ids));
    if (chance(rng, 0.6)) history.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
  }
  history.push({ role: 'user', content: [{ type: 'text', text: 'Now please check.' }] });
  const prompts = [history];
  const calls = Math.floor(rng() * 4);
  let current = history;
  for (let c = 0; c < calls; c++) {
    current = [...current, ...toolStep(rng, ids)];
    prompts.push(current);
  }
  return prompts;
}

// --- format-2 MastraDBMessage conversations (1.58/1.59) -----------------------------------------

/** A conversation as the store holds it: user turns and assistant messages with tool invocations. */
export function generateDbConversation(rng: Rng, seed: number): any[] {
  // Unique ids: with a repeated id the host's own MessageList → prompt conversion already gives
  // every result of that id the last one's model output, so no prompt-stage filter can tell
  // the calls apart (see the README).
  let nextId = 0;
  const ids = { next: () => `d${seed}-${nextId++}` };
  const messages: any[] = [];
  let n = 0;
  const base = Date.UTC(2025, 0, 1);
  const meta = () => ({ id: `m${seed}-${n}`, createdAt: new Date(base + n++ * 1000), threadId: 'thread', resourceId: 'user' });
  const turns = 1 + Math.floor(rng() * 3);
  for (let t = 0; t < turns; t++) {
    messages.push({ ...meta(), role: 'user', content: { format: 2, parts: [{ type: 'text', text: pick(rng, ['Hi', 'Weather?', 'And Rome?']) }] } });
    if (chance(rng, 0.15)) continue;
    const parts: any[] = [];
    const steps = Math.floor(rng() * 3);
    for (let s = 0; s < steps; s++) {
      parts.push({ type: 'step-start' });
      if (chance(rng, 0.3)) parts.push({ type: 'text', text: 'Let me check.' });
      // Parallel calls are common: where a text lands among kept calls depends on them.
      const calls = 1 + Math.floor(rng() * (chance(rng, 0.6) ? 3 : 1));
      for (let k = 0; k < calls; k++) {
        const toolName = pick(rng, TOOL_NAMES);
        const toolCallId = ids.next();
        const part: any = {
          type: 'tool-invocation',
          toolInvocation: { state: 'result', toolCallId, toolName, args: { q: k }, result: { raw: `${toolName}-${k}` } },
        };
        const kind = Math.floor(rng() * 4);
        if (kind === 0 || kind === 1) part.providerMetadata = { mastra: { modelOutput: modelOutputValue(rng) } };
        else if (kind === 2) part.providerMetadata = { mastra: { modelOutput: null } };
        parts.push(part);
      }
    }
    if (steps > 0) parts.push({ type: 'step-start' });
    parts.push({ type: 'text', text: pick(rng, ['Done.', 'It is sunny.']) });
    messages.push({ ...meta(), role: 'assistant', content: { format: 2, parts } });
  }
  if (messages[messages.length - 1].role !== 'user') {
    messages.push({ ...meta(), role: 'user', content: { format: 2, parts: [{ type: 'text', text: 'Thanks' }] } });
  }
  return messages;
}

// --- normalisation -------------------------------------------------------------------------------

/** JSON copy with wall-clock `createdAt` values replaced (key presence still compared). */
export function withoutClock<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === 'createdAt' ? '<time>' : v)));
}

/**
 * JSON copy without any `createdAt` key, and without `mastra` provider options left empty by
 * that. 1.58/1.59's own filter re-adds the messages it returns, and the MessageList stamps
 * `Date.now()` into every part that had no `createdAt` yet, which then shows up as
 * `providerOptions.mastra.createdAt` on prompt parts. That stamp is the clock, not content (and
 * the `mastra` namespace is not sent to any provider); a prompt-stage filter, which rewrites
 * nothing, cannot cause it.
 */
export function withoutCreatedAt<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, v) => {
      if (key === 'createdAt') return undefined;
      if (v && typeof v === 'object' && !Array.isArray(v) && v.mastra && typeof v.mastra === 'object') {
        const { createdAt, ...mastra } = v.mastra;
        const out = { ...v };
        if (Object.keys(mastra).length === 0) delete out.mastra;
        else out.mastra = mastra;
        if (key === 'providerOptions' || key === 'providerMetadata') return Object.keys(out).length === 0 ? undefined : out;
        return out;
      }
      return v;
    }),
  );
}
