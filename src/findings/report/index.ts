// The observations report: read every run below a folder, group its findings, render md/html/json.
export { buildReport, type BuildReportOptions } from './build-report.js';
export { parseFilters, parseSince, type RawFilterOptions } from './filters.js';
export { normaliseTitle, groupKey } from './group-key.js';
export { renderReport, renderReportChunks } from './render.js';
export { renderMarkdown } from './render-markdown.js';
export { renderHtml } from './render-html.js';
export { renderJson } from './render-json.js';
export { escapeHtml, escapeMarkdown, jsonForScript, safeHttpsUrl, markdownFence } from './escape.js';
export {
  REPORT_FORMATS,
  type Report,
  type ReportFormat,
  type ReportFilters,
  type ReportSummary,
  type FindingGroup,
  type FindingRecord,
  type InvalidObservation,
  type BrokenLine,
  type RunSummary,
} from './types.js';
