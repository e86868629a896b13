// A suggestion for a key the config file does not know: the same key in snake_case, or a known
// key at most two edits away (docs/config.md).
import { editDistance } from '../plan/plan-config.js';

export function didYouMean(key: string, known: readonly string[]): string | undefined {
  const normal = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase();
  if (known.includes(normal)) return normal;
  if (normal.length < 3) return undefined;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(normal, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}
