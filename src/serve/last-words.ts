// What the agent said last, for the overview: the last line of its own words in the tail of the
// current iteration's transcript (tool output and notes skipped). Reads at most TAIL bytes.
import type { RunPaths } from '../runs/paths.js';
import type { StreamFormat } from '../loop/types.js';
import { readRange } from '../util/file-range.js';
import { TranscriptReader, cutText } from './transcript-items.js';

const TAIL = 16 * 1024;

export function lastWords(paths: RunPaths, iteration: number, format: StreamFormat): string | null {
  const r = readRange(paths.transcript(iteration), 0, TAIL, true);
  if (r.bytes.length === 0) return null;
  let bytes = r.bytes;
  if (r.start > 0) {
    const nl = bytes.indexOf(0x0a);
    bytes = nl === -1 ? Buffer.alloc(0) : bytes.subarray(nl + 1);
  }
  const reader = new TranscriptReader(format);
  const items = [...reader.push(bytes), ...reader.end()];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== 'words') continue;
    const line = item.text.split('\n').filter((l) => l.trim() !== '').at(-1);
    if (line !== undefined) return cutText(line.trim(), 300);
  }
  return null;
}
