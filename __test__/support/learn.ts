// Shared by the learn specs: scripts of a task solved the long way and of a plain answer, and
// pairs of requests alike enough that what the first teaches serves the second.
import type { ScriptStep } from './scripted-model';

/** A task solved the long way: load the tool, call it, answer. */
export const solve = (tool: string): ScriptStep[] => [{ tool: 'load_tool', input: { toolName: tool } }, { tool, input: {} }, { text: 'done' }];
export const answer: ScriptStep[] = [{ text: 'ok' }];
export const DINNER = 'sort out dinner for four on friday at Luigi';
export const DINNER_AGAIN = 'sort out dinner for two on saturday at Luigi';
export const RATES = 'change 200 dollars into euros for my trip';
export const RATES_AGAIN = 'change 50 dollars into euros for the trip';

/**
 * Polls `check` until it holds, or fails after `ms` (a shared learning store's append is
 * fire-and-forget, and another process reads the log at its next step).
 */
export async function eventually(check: () => Promise<boolean>, ms = 15_000, everyMs = 100) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
