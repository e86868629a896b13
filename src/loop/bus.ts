import { EventEmitter } from 'eventemitter3';
import type { RunEvent } from './events.js';

/** The one channel everything the loop does goes through; subscribers render, log and count. */
export class RunBus extends EventEmitter<{ event: [RunEvent] }> {
  emitEvent(event: RunEvent): void {
    this.emit('event', event);
  }
}
