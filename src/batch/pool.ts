// At most `concurrency` tasks at a time, in order; once `signal` is aborted no new task starts
// (the running ones finish on their own, having been told through the same signal).
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ started: T[] }> {
  const started: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const item = items[next++]!;
      started.push(item);
      await task(item);
    }
  };
  const n = Math.max(1, Math.min(concurrency, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  return { started };
}
