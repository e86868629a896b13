// Splitting a plan into YAML front matter and Markdown body, and parsing the YAML with line
// numbers that point into the plan file.
import { LineCounter, parseDocument, type Document } from 'yaml';

export interface FrontMatterSplit {
  /** The YAML between the fences; undefined when the file has no front matter. */
  yaml?: string;
  /** 1-based file line of the YAML's first line (the line after the opening `---`). */
  yamlLine: number;
  body: string;
  /** 1-based file line where the body starts. */
  bodyLine: number;
  /** Set when an opening `---` is never closed. */
  unclosed?: boolean;
}

const FENCE = /^---[ \t]*\r?$/;
const END = /^(?:---|\.\.\.)[ \t]*\r?$/;

export function splitFrontMatter(text: string): FrontMatterSplit {
  const start = text.startsWith('\uFEFF') ? 1 : 0;
  const firstEnd = text.indexOf('\n', start);
  const firstLine = text.slice(start, firstEnd === -1 ? text.length : firstEnd);
  if (!FENCE.test(firstLine)) return { yamlLine: 1, body: text.slice(start), bodyLine: 1 };

  let lineStart = firstEnd === -1 ? text.length : firstEnd + 1;
  let lineNo = 2;
  while (lineStart < text.length) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    if (END.test(text.slice(lineStart, lineEnd))) {
      const yaml = text.slice(firstEnd + 1, lineStart);
      return { yaml, yamlLine: 2, body: nl === -1 ? '' : text.slice(nl + 1), bodyLine: lineNo + 1 };
    }
    lineStart = lineEnd + 1;
    lineNo++;
  }
  // Most likely the closing fence was forgotten: keep reading the rest as body so its problems
  // are reported too, rather than as YAML that would only produce noise.
  return { yamlLine: 2, body: firstEnd === -1 ? '' : text.slice(firstEnd + 1), bodyLine: 2, unclosed: true };
}

export interface YamlIssue {
  line: number;
  message: string;
}

export interface ParsedYaml {
  doc: Document.Parsed;
  /** File line of a node's start offset in the YAML text. */
  lineOf(offset: number): number;
  errors: YamlIssue[];
}

export function parseFrontMatterYaml(yaml: string, yamlLine: number): ParsedYaml {
  const counter = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter: counter, prettyErrors: false });
  const lineOf = (offset: number): number => counter.linePos(offset).line + yamlLine - 1;
  const errors = doc.errors.map((e) => ({
    line: lineOf(e.pos[0]),
    // The library appends "at line X, column Y" relative to the YAML; our line is the file's.
    message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '').replace(/[.:]$/, ''),
  }));
  return { doc, lineOf, errors };
}
