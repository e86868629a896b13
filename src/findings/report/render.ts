import { htmlChunks } from './render-html.js';
import { jsonChunks } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import type { Report, ReportFormat } from './types.js';

export function renderReport(report: Report, format: ReportFormat): string {
  return Array.from(renderReportChunks(report, format)).join('');
}

/** The report in pieces, to be written as they come: big reports never exist as one string. */
export function renderReportChunks(report: Report, format: ReportFormat): Iterable<string> {
  switch (format) {
    case 'md':
      return [renderMarkdown(report)];
    case 'html':
      return htmlChunks(report);
    case 'json':
      return jsonChunks(report);
    default: {
      const never: never = format;
      throw new Error(`unknown report format ${String(never)}`);
    }
  }
}
