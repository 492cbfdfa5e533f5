import type { MastraDBMessage, MessageList } from '@mastra/core/agent';
import type {
  ProcessInputStepArgs,
  ProcessInputStepResult,
  ProcessLLMRequestArgs,
  ProcessLLMRequestResult,
  Processor,
} from '@mastra/core/processors';
import type { RequestContext } from '@mastra/core/request-context';

/** Options of {@link ToolCallFilter}; the host's, plus `stage`. */
export type ToolCallFilterOptions = {
  /** Tool names to remove. Absent: every tool call is removed; `[]`: nothing is removed. */
  exclude?: string[];
  /** Keep the tool calls of this many recent tool-producing steps (what counts as a step follows the host). */
  filterAfterToolSteps?: number;
  /** Keep a removed result's model-facing output (its `toModelOutput` text) as `<tool> result:\n<text>`. */
  preserveModelOutput?: boolean;
  /**
   * Where the filter works. Absent: where the installed host's own filter works — the message
   * list in `processInput`/`processInputStep` on @mastra/core 1.58/1.59 (the filtered tool calls
   * are then also missing from memory), the prompt in `processLLMRequest` on 1.60+.
   * `'prompt'`: always in `processLLMRequest`: on 1.58/1.59 the model receives exactly the prompt
   * that host's own filter would produce, and the message list and memory keep every tool call;
   * on 1.60+ this is the host's behaviour anyway.
   */
  stage?: 'prompt';
};

/**
 * Filters tool calls and results out of what the model sees.
 * Drop-in replacement for `ToolCallFilter` from `@mastra/core/processors` (1.58–1.71): an
 * instance has the methods of its stage only (`processInput`/`processInputStep`, or
 * `processLLMRequest`), because the host's runner calls whichever exist.
 */
export declare class ToolCallFilter implements Processor {
  readonly id: 'tool-call-filter';
  name: string;
  private exclude;
  private filterAfterToolSteps;
  private preserveModelOutput;
  constructor(options?: ToolCallFilterOptions);
  /** Message stage only (the default on 1.58/1.59). */
  processInput?(args: {
    messages: MastraDBMessage[];
    messageList: MessageList;
    abort: (reason?: string) => never;
    requestContext?: RequestContext;
  }): Promise<MessageList | MastraDBMessage[]>;
  /** Message stage only (the default on 1.58/1.59). */
  processInputStep?(args: ProcessInputStepArgs): Promise<ProcessInputStepResult>;
  /**
   * Prompt stage only (the default on 1.60+, or `stage: 'prompt'`). Declared non-optional, as
   * upstream's latest filter declares it; on 1.58/1.59 without `stage: 'prompt'` the instance
   * has `processInput`/`processInputStep` instead.
   */
  processLLMRequest(args: ProcessLLMRequestArgs): Promise<ProcessLLMRequestResult>;
}
