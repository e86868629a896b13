import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../../src/executors/command/event-queue.js';

describe('EventQueue', () => {
  it('delivers in order, then undefined once closed and drained', async () => {
    const q = new EventQueue<number>({ highWater: 100, pause: () => {}, resume: () => {} });
    q.push(1);
    q.push(2);
    q.close();
    q.push(3); // after close: ignored
    expect([await q.take(), await q.take(), await q.take()]).toEqual([1, 2, undefined]);
  });

  it('wakes a waiting consumer when an item arrives', async () => {
    const q = new EventQueue<string>({ highWater: 100, pause: () => {}, resume: () => {} });
    const taken = q.take();
    q.push('x');
    expect(await taken).toBe('x');
  });

  it('pauses the producer at the high-water mark and resumes it at half', async () => {
    const calls: string[] = [];
    const q = new EventQueue<number>({ highWater: 4, pause: () => calls.push('pause'), resume: () => calls.push('resume') });
    for (let i = 0; i < 6; i++) q.push(i);
    expect(calls).toEqual(['pause']);
    expect(q.isPaused).toBe(true);
    await q.take(); // 5 left
    await q.take(); // 4 left
    expect(calls).toEqual(['pause']);
    await q.take(); // 3 left
    await q.take(); // 2 left = half
    expect(calls).toEqual(['pause', 'resume']);
    expect(q.isPaused).toBe(false);
  });

  it('keeps FIFO order across many items (compaction)', async () => {
    const q = new EventQueue<number>({ highWater: 1e9, pause: () => {}, resume: () => {} });
    let pushed = 0;
    let expected = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3000; i++) q.push(pushed++);
      for (let i = 0; i < 2500; i++) expect(await q.take()).toBe(expected++);
    }
    expect(q.size).toBe(2500);
  });
});
