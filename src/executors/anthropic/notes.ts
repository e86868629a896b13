// The few words the executor itself says to the model, in one place. Everything else the model
// reads comes from ralph's prompt templates.

/** After a reply was cut by max_tokens: a user turn asking to go on. */
export const CONTINUE_AFTER_MAX_TOKENS =
  'Your reply was cut off by the output token limit. Continue exactly where it stopped; if a tool call was cut, make it again.';

/** When the loop continues the conversation without a message of its own. */
export const CONTINUE_ITERATION = 'Continue with the plan.';

/** tool_result for a tool call that was not run because the iteration was stopped. */
export const INTERRUPTED_TOOL = 'Not run: the iteration was stopped before this tool call ran.';
