// The json format is the Report itself: a stable, documented shape (version 1), compact (it can
// hold 100,000 findings; pipe it through jq to read it).
import type { Report } from './types.js';

export function renderJson(report: Report): string {
  return `${JSON.stringify(report)}\n`;
}
