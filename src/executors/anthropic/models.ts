// The one table of models ralph knows a price for. Prices are USD per million tokens, from
// Anthropic's published pricing (platform.claude.com, checked November 2026; cache write = the
// 5-minute rate, which is what `cache_control: {type:'ephemeral'}` buys). A model missing here
// still runs: its cost is reported as unknown (null), never as 0.
import type { TokenUsage } from '../types.js';

export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheWritePerMTok: number;
  cacheReadPerMTok: number;
}

/** A current Sonnet: the speed/intelligence middle of the line-up, which suits long agent loops. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

function price(input: number, output: number, cacheWrite: number, cacheRead: number): ModelPrice {
  return Object.freeze({
    inputPerMTok: input,
    outputPerMTok: output,
    cacheWritePerMTok: cacheWrite,
    cacheReadPerMTok: cacheRead,
  });
}

const FABLE_5_1 = price(10, 50, 12.5, 0.25);
const FABLE_5 = price(10, 50, 12.5, 1);
const OPUS_5_5 = price(4, 20, 5, 0.2);
const OPUS_4_5_TO_5 = price(5, 25, 6.25, 0.5);
const SONNET_5_5 = price(2, 10, 2.5, 0.1);
const SONNET_5 = price(2, 10, 2.5, 0.2);
const SONNET_4 = price(3, 15, 3.75, 0.3);
// Haiku 5.5 is billed in two bands by prompt length; this is the band up to 100k prompt tokens.
const HAIKU_5_5 = price(0.1, 0.5, 0.125, 0.01);
const HAIKU_4_5 = price(1, 5, 1.25, 0.1);

export const MODEL_PRICES: Record<string, ModelPrice> = Object.freeze({
  'claude-fable-5-1': FABLE_5_1,
  'claude-mythos-5-1': FABLE_5_1,
  'claude-fable-5': FABLE_5,
  'claude-mythos-5': FABLE_5,
  'claude-opus-5-5': OPUS_5_5,
  'claude-opus-5': OPUS_4_5_TO_5,
  'claude-opus-4-8': OPUS_4_5_TO_5,
  'claude-opus-4-7': OPUS_4_5_TO_5,
  'claude-opus-4-6': OPUS_4_5_TO_5,
  'claude-opus-4-5': OPUS_4_5_TO_5,
  'claude-opus-4-5-20251101': OPUS_4_5_TO_5,
  'claude-sonnet-5-5': SONNET_5_5,
  'claude-sonnet-5': SONNET_5,
  'claude-sonnet-4-6': SONNET_4,
  'claude-sonnet-4-5': SONNET_4,
  'claude-sonnet-4-5-20250929': SONNET_4,
  'claude-haiku-5-5': HAIKU_5_5,
  'claude-haiku-4-5': HAIKU_4_5,
  'claude-haiku-4-5-20251001': HAIKU_4_5,
});

/** USD cost of one request's usage; null when the model has no price in the table. */
export function costOf(model: string, usage: TokenUsage): number | null {
  const p = Object.hasOwn(MODEL_PRICES, model) ? MODEL_PRICES[model] : undefined;
  if (!p) return null;
  return (
    (usage.input * p.inputPerMTok +
      usage.output * p.outputPerMTok +
      usage.cacheWrite * p.cacheWritePerMTok +
      usage.cacheRead * p.cacheReadPerMTok) /
    1_000_000
  );
}
