// Bridges push-style stream callbacks to a pull-style async generator. When the consumer falls
// behind, the producer is told to pause (the child's pipes fill and the agent waits), so memory
// stays bounded however fast the agent writes.

export interface EventQueueOptions {
  /** Pause the producer when this many items are waiting; resume when half have been taken. */
  highWater: number;
  pause: () => void;
  resume: () => void;
}

export class EventQueue<T> {
  private items: T[] = [];
  private head = 0;
  private closed = false;
  private paused = false;
  private wake: (() => void) | null = null;

  constructor(private readonly options: EventQueueOptions) {}

  get size(): number {
    return this.items.length - this.head;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** True while the producer has been told to pause. */
  get isPaused(): boolean {
    return this.paused;
  }

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    if (!this.paused && this.size >= this.options.highWater) {
      this.paused = true;
      this.options.pause();
    }
    this.notify();
  }

  /** No more items will come; take() drains what is left, then returns undefined. */
  close(): void {
    this.closed = true;
    this.notify();
  }

  async take(): Promise<T | undefined> {
    while (this.size === 0) {
      if (this.closed) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    const item = this.items[this.head] as T;
    this.items[this.head] = undefined as T; // let it be collected
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (this.paused && this.size <= this.options.highWater / 2) {
      this.paused = false;
      this.options.resume();
    }
    return item;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
