// Output to a terminal or pipe is asynchronous in Node: behind a slow reader (`ralph exec … |
// (sleep 15; cat)`, a paused terminal) every write waits in memory, and a flood of agent output
// once grew ralph to 1.2 GB. Agent output on the display is a courtesy, the transcript holds all
// of it: past a high-water mark of bytes waiting to be written, agent output is dropped (never
// ralph's own lines) and a note says how much and where to find it (docs/hostile.md "Slow readers").

/** Bytes waiting in the stream beyond which agent output is not shown. */
export const DISPLAY_HIGH_WATER = 4 * 1024 * 1024;

export interface DisplayBudget {
  /** Whether `bytes` of agent output may be written now; counts them as dropped when not. */
  admit(bytes: number): boolean;
  /** A note about dropped output, once the stream has caught up (then the count starts again). */
  note(force?: boolean): string | undefined;
}

export function displayBudget(stream: NodeJS.WritableStream, highWater = DISPLAY_HIGH_WATER): DisplayBudget {
  const waiting = () => (stream as { writableLength?: number }).writableLength ?? 0;
  let dropped = 0;
  return {
    admit(bytes) {
      if (waiting() < highWater) return true;
      dropped += bytes;
      return false;
    },
    note(force = false) {
      if (dropped === 0 || (!force && waiting() >= highWater / 2)) return undefined;
      const text = `[ralph: ${dropped} bytes of the agent's output were not shown here because the output was read too slowly; the iteration's transcript (iterations/<n>.log) has them]`;
      dropped = 0;
      return text;
    },
  };
}
