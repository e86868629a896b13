import { renderHtml } from './render-html.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import type { Report, ReportFormat } from './types.js';

export function renderReport(report: Report, format: ReportFormat): string {
  switch (format) {
    case 'md':
      return renderMarkdown(report);
    case 'html':
      return renderHtml(report);
    case 'json':
      return renderJson(report);
    default: {
      const never: never = format;
      throw new Error(`unknown report format ${String(never)}`);
    }
  }
}
