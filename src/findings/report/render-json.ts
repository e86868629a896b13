// The json format is the Report itself: a stable, documented shape (version 1), compact (it can
// hold 100,000 findings; pipe it through jq to read it).
import { joinChunks, type ByteOutput, type Chunk, type Piece } from './byte-output.js';
import { findingSource } from './finding-source.js';
import { TEXT_FIELD, type FindingFields, type FindingGroup, type FindingSource, type Report } from './types.js';

/**
 * Findings serialised per chunk. One JSON.stringify of the whole report builds a 30 MB rope that
 * then has to be flattened and encoded in one piece, which cost more than the serialising. Small
 * chunks (~60 KB) stay in the young generation, whose pages are mapped and warm; chunks of 1,000
 * (~500 KB) each went to fresh large-object pages, and rendering the json took a fifth longer.
 */
export const FINDINGS_PER_CHUNK = 128;
/** Bytes of findings written as bytes (FindingFields) per chunk. */
export const BYTES_PER_CHUNK = 64 * 1024;

export function renderJson(report: Report): string {
  return joinChunks(jsonChunks(report));
}

/** The same text as `JSON.stringify(report)` plus a line break, in pieces, keys in Report order. */
export function* jsonChunks(report: Report): Generator<Chunk> {
  // Named one by one: reading `findings` would make every finding an object at once.
  const { version, generatedAt, runsDir, filters, summary, invalid, brokenLines, runs, problems } = report;
  const opening = JSON.stringify({ version, generatedAt, runsDir, filters, summary });
  yield `${opening.slice(0, -1)},"findings":[`;
  const source = findingSource(report);
  if (source.fields !== undefined) yield* findingsAsBytes(source, source.fields);
  else yield* findingsAsText(source);
  yield `],"invalid":${JSON.stringify(invalid)},"brokenLines":${JSON.stringify(brokenLines)},"runs":${JSON.stringify(runs)},"problems":${JSON.stringify(problems)}}\n`;
}

/** The findings array's elements, comma-separated, by JSON.stringify a slice at a time. */
function* findingsAsText(source: FindingSource): Generator<string> {
  for (let i = 0; i < source.length; i += FINDINGS_PER_CHUNK) {
    // The comma goes out on its own: joined to a slice it would make a rope to flatten (copy).
    if (i > 0) yield ',';
    yield JSON.stringify(source.slice(i, i + FINDINGS_PER_CHUNK)).slice(1, -1);
  }
}

/**
 * The same elements as UTF-8. A finding whose text needs no escaping in JSON (plain) is written
 * from a template, keys in FindingGroup's order, its text copied as the bytes it was read as;
 * any other is made an object and given to JSON.stringify. Run and plan lists, shared by many
 * findings, are serialised once each.
 */
function* findingsAsBytes(source: FindingSource, f: FindingFields): Generator<Uint8Array> {
  const out = f.output();
  // What many findings share is kept as pieces: the start of each kind of finding up to its
  // title, each run and plan list with its key, and the text between fields.
  const starts = new Map<number, Piece>();
  const runLists = new Map<readonly string[], Piece>();
  const planLists = new Map<readonly string[], Piece>();
  const comma = out.piece(',');
  const between: TextPieces = {
    afterTitle: out.piece('","detail":"'),
    beforeFile: out.piece('","file":"'),
    afterFile: out.piece('","count":'),
    noFile: out.piece('","file":null,"count":'),
  };
  const firstAt = out.piece(',"firstAt":"');
  const lastAt = out.piece('","lastAt":"');
  const end = out.piece('"}');
  for (let j = 0; j < source.length; j++) {
    if (j > 0) out.put(comma);
    if (f.plain(j) === undefined) {
      out.utf8(JSON.stringify(source.get(j) satisfies FindingGroup));
    } else {
      out.put(pieceOf(out, starts, f.kind(j), () => `{"type":"${f.type(j)}","severity":"${source.severity(j)}","action":"${f.action(j)}","title":"`));
      writeTexts(out, f, j, between);
      out.ascii(`${source.count(j)}`);
      const runs = f.runs(j);
      out.put(pieceOf(out, runLists, runs, () => `,"runs":${JSON.stringify(runs)}`));
      const plans = f.plans(j);
      out.put(pieceOf(out, planLists, plans, () => `,"plans":${JSON.stringify(plans)}`));
      out.put(firstAt);
      f.text(j, TEXT_FIELD.firstAt, out);
      out.put(lastAt);
      f.text(j, TEXT_FIELD.lastAt, out);
      out.put(end);
    }
    if (out.length >= BYTES_PER_CHUNK) yield out.take();
  }
  if (out.length > 0) yield out.take();
}

/** The piece kept for `key`, made from `text()` the first time. */
export function pieceOf<K>(out: ByteOutput, kept: Map<K, Piece>, key: K, text: () => string): Piece {
  let piece = kept.get(key);
  if (piece === undefined) {
    piece = out.piece(text());
    kept.set(key, piece);
  }
  return piece;
}

/** What goes between a finding's title, detail and file (or where a null file is). */
export interface TextPieces {
  afterTitle: Piece;
  beforeFile: Piece;
  afterFile: Piece;
  noFile: Piece;
}

/** Finding j's title, detail and file as bytes, with `p` between them. */
export function writeTexts(out: ByteOutput, f: FindingFields, j: number, p: TextPieces): void {
  f.text(j, TEXT_FIELD.title, out);
  out.put(p.afterTitle);
  f.text(j, TEXT_FIELD.detail, out);
  if (f.hasFile(j)) {
    out.put(p.beforeFile);
    f.text(j, TEXT_FIELD.file, out);
    out.put(p.afterFile);
  } else {
    out.put(p.noFile);
  }
}
