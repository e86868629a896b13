// Prices used to estimate an iteration's cost when the agent reports tokens but no cost
// (docs/files.md#receipts). List prices in USD per million tokens, as published by each vendor
// for the model its CLI runs by default; an estimate is always marked as one, never mixed up with
// a reported cost. Unknown formats get no estimate.
import type { TokenUsage } from '../executors/types.js';

export interface Price {
  /** Which model the price is for, as shown in the docs. */
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const PRICE_TABLE: Readonly<Record<string, Price>> = {
  'claude-json': { model: 'Claude Sonnet', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  anthropic: { model: 'Claude Sonnet', input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'codex-json': { model: 'GPT-5', input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  'gemini-json': { model: 'Gemini 2.5 Pro', input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.25 },
  'qwen-json': { model: 'Qwen3 Coder Plus', input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1 },
};

/** The estimated cost of `tokens` by the table's entry for `key` (the stream format, or `anthropic`); undefined when it has none. */
export function estimateCost(key: string, tokens: TokenUsage): number | undefined {
  const price = PRICE_TABLE[key];
  if (price === undefined) return undefined;
  const usd = (tokens.input * price.input + tokens.output * price.output + tokens.cacheRead * price.cacheRead + tokens.cacheWrite * price.cacheWrite) / 1_000_000;
  return roundUsd(usd);
}

/** Costs are kept to a millionth of a dollar, however they were summed. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
