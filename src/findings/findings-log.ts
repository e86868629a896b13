// findings.jsonl (docs/files.md#findingsjsonl): one observation a line, appended the moment its closing tag arrives.
import { JsonlAppender } from '../runs/jsonl-appender.js';
import type { ObservationRecord } from '../signals/index.js';

export interface FindingInput {
  run: string;
  plan: string;
  iteration: number;
  at: string;
  record: ObservationRecord;
}

export class FindingsLog {
  private readonly out: JsonlAppender;

  constructor(path: string) {
    this.out = new JsonlAppender(path);
  }

  append({ run, plan, iteration, at, record }: FindingInput): void {
    const { raw, error, ...fields } = record;
    this.out.append({
      run,
      plan,
      iteration,
      at,
      ...fields,
      ...(raw !== undefined ? { raw } : {}),
      ...(error !== undefined ? { error } : {}),
    });
  }

  close(): void {
    this.out.close();
  }
}
