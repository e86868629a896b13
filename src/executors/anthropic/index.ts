// The `anthropic` executor's public surface.
export {
  createAnthropicExecutor,
  DEFAULT_MAX_TOKENS,
  type AnthropicExecutor,
  type AnthropicExecutorOptions,
} from './executor.js';
export { DEFAULT_MODEL, MODEL_PRICES, costOf, type ModelPrice } from './models.js';
