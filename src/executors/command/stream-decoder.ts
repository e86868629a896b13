// A JSON stream format is one decoder: fed each JSON object of the stream in order, it returns the
// executor events that object means. Decoders keep per-iteration state (tool ids, session id) and
// never throw on unexpected shapes.
import type { ExecutorEvent } from '../types.js';
import type { JsonObject } from './untrusted.js';

export interface StreamDecoder {
  /** Names the format in warnings ("claude-json"). */
  readonly format: string;
  decode(event: JsonObject): ExecutorEvent[];
  /** The stream ended: what is still owed (an estimate of usage when no final report came). */
  end?(): ExecutorEvent[];
}
