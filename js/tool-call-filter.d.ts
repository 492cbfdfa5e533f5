import type { MastraDBMessage, MessageList } from '@mastra/core/agent';
import type { ProcessInputStepArgs, ProcessInputStepResult, Processor } from '@mastra/core/processors';
import type { RequestContext } from '@mastra/core/request-context';

/** Options of {@link ToolCallFilter}; the same as `@mastra/core`'s. */
export type ToolCallFilterOptions = {
  /** Tool names to remove. Absent: every tool call is removed; `[]`: nothing is removed. */
  exclude?: string[];
  /** Also filter at every agent-loop step, keeping the tool calls of this many recent tool-producing steps. */
  filterAfterToolSteps?: number;
  /** Keep `providerMetadata.mastra.modelOutput` of removed completed results as `<tool> result:\n<text>` text. */
  preserveModelOutput?: boolean;
};

/**
 * Filters tool calls and results out of the message history before it reaches the model.
 * Drop-in replacement for `ToolCallFilter` from `@mastra/core/processors` (1.59.0 behaviour).
 */
export declare class ToolCallFilter implements Processor {
  readonly id: 'tool-call-filter';
  name: string;
  private exclude;
  private filterAfterToolSteps;
  private preserveModelOutput;
  constructor(options?: ToolCallFilterOptions);
  processInput(args: {
    messages: MastraDBMessage[];
    messageList: MessageList;
    abort: (reason?: string) => never;
    requestContext?: RequestContext;
  }): Promise<MessageList | MastraDBMessage[]>;
  processInputStep(args: ProcessInputStepArgs): Promise<ProcessInputStepResult>;
}
