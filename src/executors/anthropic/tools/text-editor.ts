// Anthropic's text editor tool (text_editor_20250728, name str_replace_based_edit_tool), run by
// ralph on files inside the working directory. Every failure is a ToolError whose message is what
// the model reads: what went wrong and what to do instead.
import { constants } from 'node:fs';
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import { readRegularFile } from '../../../util/read-regular-file.js';
import { dirname, join, relative } from 'node:path';
import { boundText } from './bounded-output.js';
import { PathEscapeError, resolveInside } from './safe-path.js';

export const TEXT_EDITOR_NAME = 'str_replace_based_edit_tool';
export const TEXT_EDITOR_TYPE = 'text_editor_20250728';

export class ToolError extends Error {}

export interface EditorInput {
  command?: unknown;
  path?: unknown;
  view_range?: unknown;
  file_text?: unknown;
  old_str?: unknown;
  new_str?: unknown;
  insert_line?: unknown;
  insert_text?: unknown;
}

const VIEW_LIMIT = 60_000;
const DIR_ENTRY_LIMIT = 1_000;
const SNIPPET_CONTEXT = 4;

function numbered(lines: string[], firstLineNo: number): string {
  let out = '';
  for (let i = 0; i < lines.length; i++) out += `${String(firstLineNo + i).padStart(6)}\t${lines[i]}\n`;
  return out;
}

/** The lines of a text, without the empty "line" after a final newline. */
function splitLines(content: string): string[] {
  if (content === '') return [];
  return (content.endsWith('\n') ? content.slice(0, -1) : content).split('\n');
}

function requireString(value: unknown, name: string, command: string): string {
  if (typeof value !== 'string') throw new ToolError(`${command} needs \`${name}\` (a string)`);
  return value;
}

async function readText(abs: string, shown: string): Promise<string> {
  let buf: Buffer;
  try {
    buf = await readRegularFile(abs); // a FIFO the agent made must not hang the run
  } catch (e) {
    throw fsError(e, shown);
  }
  if (buf.subarray(0, 8192).includes(0)) {
    throw new ToolError(`${shown} looks like a binary file; the editor only works on text files`);
  }
  return buf.toString('utf8');
}

function fsError(e: unknown, shown: string): ToolError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new ToolError(`the path ${shown} does not exist; check it (paths are relative to the working directory)`);
  if (code === 'EISDIR') return new ToolError(`${shown} is a directory, not a file`);
  if (code === 'EACCES' || code === 'EPERM') return new ToolError(`permission denied: ${shown}`);
  return new ToolError(`${shown}: ${(e as Error).message}`);
}

async function listDirectory(abs: string, shown: string): Promise<string> {
  const entries: string[] = [];
  let more = false;
  const walk = async (dir: string, depth: number): Promise<void> => {
    const items = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const item of items) {
      if (item.name.startsWith('.') || item.name === 'node_modules') continue;
      if (entries.length >= DIR_ENTRY_LIMIT) {
        more = true;
        return;
      }
      const full = join(dir, item.name);
      entries.push(relative(abs, full) + (item.isDirectory() ? '/' : ''));
      if (item.isDirectory() && depth < 2) await walk(full, depth + 1);
    }
  };
  try {
    await walk(abs, 1);
  } catch (e) {
    throw fsError(e, shown);
  }
  const head = `Files and directories up to 2 levels deep in ${shown}, excluding hidden items and node_modules:\n`;
  const tail = more ? `[... listing cut at ${DIR_ENTRY_LIMIT} entries; view a subdirectory to see more ...]\n` : '';
  return head + entries.join('\n') + (entries.length ? '\n' : '') + tail;
}

function parseRange(value: unknown, lineCount: number): [number, number] {
  if (!Array.isArray(value) || value.length !== 2 || !value.every((n) => Number.isInteger(n))) {
    throw new ToolError('view_range must be two integers [start, end] (end -1 = to the end of the file)');
  }
  const [start, end] = value as [number, number];
  if (start < 1 || start > Math.max(lineCount, 1)) {
    throw new ToolError(`view_range start ${start} is outside the file's lines 1..${lineCount}`);
  }
  if (end !== -1 && end < start) throw new ToolError(`view_range end ${end} is before its start ${start}`);
  return [start, end === -1 ? lineCount : Math.min(end, lineCount)];
}

async function view(abs: string, shown: string, input: EditorInput): Promise<string> {
  let isDir: boolean;
  try {
    isDir = (await stat(abs)).isDirectory();
  } catch (e) {
    throw fsError(e, shown);
  }
  if (isDir) {
    if (input.view_range !== undefined) throw new ToolError('view_range is for files; this path is a directory');
    return listDirectory(abs, shown);
  }
  const lines = splitLines(await readText(abs, shown));
  if (input.view_range === undefined || input.view_range === null) {
    return boundText(numbered(lines, 1), VIEW_LIMIT);
  }
  const [start, end] = parseRange(input.view_range, lines.length);
  return boundText(numbered(lines.slice(start - 1, end), start), VIEW_LIMIT);
}

function snippetAround(content: string, offset: number, insertedLength: number): string {
  const lines = splitLines(content);
  const firstLine = content.slice(0, offset).split('\n').length; // 1-based line of the edit
  const lastLine = firstLine + content.slice(offset, offset + insertedLength).split('\n').length - 1;
  const from = Math.max(1, firstLine - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, lastLine + SNIPPET_CONTEXT);
  return boundText(numbered(lines.slice(from - 1, to), from), VIEW_LIMIT);
}

function lineOf(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i >= 0 && i < offset; i = content.indexOf('\n', i + 1)) line++;
  return line;
}

async function strReplace(abs: string, shown: string, input: EditorInput): Promise<string> {
  const oldStr = requireString(input.old_str, 'old_str', 'str_replace');
  if (oldStr === '') throw new ToolError('old_str is empty; give the exact text to replace');
  const newStr = input.new_str === undefined || input.new_str === null ? '' : requireString(input.new_str, 'new_str', 'str_replace');
  const content = await readText(abs, shown);
  const matches: number[] = [];
  for (let i = content.indexOf(oldStr); i >= 0; i = content.indexOf(oldStr, i + 1)) matches.push(i);
  if (matches.length === 0) {
    throw new ToolError(`No replacement was performed: old_str did not appear verbatim in ${shown}. View the file and copy the text exactly (whitespace included).`);
  }
  if (matches.length > 1) {
    const lines = matches.slice(0, 10).map((m) => lineOf(content, m));
    throw new ToolError(
      `No replacement was performed: old_str appears ${matches.length} times in ${shown} (lines ${lines.join(', ')}${matches.length > 10 ? ', …' : ''}). Include more surrounding text so it matches exactly once.`,
    );
  }
  const at = matches[0]!;
  const updated = content.slice(0, at) + newStr + content.slice(at + oldStr.length);
  await writeText(abs, shown, updated);
  return `The file ${shown} has been edited. A snippet of it (cat -n):\n${snippetAround(updated, at, newStr.length)}`;
}

async function insert(abs: string, shown: string, input: EditorInput): Promise<string> {
  const line = input.insert_line;
  if (typeof line !== 'number' || !Number.isInteger(line)) throw new ToolError('insert needs `insert_line` (an integer; 0 = before the first line)');
  // The tool's schema calls it insert_text; some model versions send new_str: both are accepted.
  const textValue = input.insert_text ?? input.new_str;
  const text = requireString(textValue, 'insert_text', 'insert');
  const content = await readText(abs, shown);
  const lines = splitLines(content);
  if (line < 0 || line > lines.length) {
    throw new ToolError(`insert_line ${line} is outside 0..${lines.length} (the file has ${lines.length} lines)`);
  }
  const added = splitLines(text.endsWith('\n') ? text : `${text}\n`);
  if (added.length === 0) added.push('');
  lines.splice(line, 0, ...added);
  const keepNoFinalNewline = content !== '' && !content.endsWith('\n');
  await writeText(abs, shown, lines.join('\n') + (keepNoFinalNewline ? '' : '\n'));
  const from = Math.max(1, line + 1 - SNIPPET_CONTEXT);
  const to = Math.min(lines.length, line + added.length + SNIPPET_CONTEXT);
  return `Text inserted after line ${line} of ${shown}. A snippet of it (cat -n):\n${numbered(lines.slice(from - 1, to), from)}`;
}

/**
 * Writes through one descriptor that was checked: not a symlink (O_NOFOLLOW), not a FIFO (opened
 * without blocking, then fstat), and not a file with a second hard link, which may be a file
 * outside the working directory under another name (docs/hostile.md "Signal files and links").
 */
async function writeText(abs: string, shown: string, text: string): Promise<void> {
  let handle;
  try {
    handle = await open(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENXIO') throw new ToolError(`${shown} is a FIFO (named pipe), not a file; the editor only writes regular files`);
    throw fsError(e, shown);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ToolError(`${shown} is not a regular file; the editor only writes regular files`);
    if (info.nlink > 1) {
      throw new ToolError(`${shown} has ${info.nlink} hard links, so it may be a file outside the working directory under another name; the editor does not write to it (copy it to a new file first)`);
    }
    await handle.truncate(0);
    await handle.writeFile(text, 'utf8');
  } catch (e) {
    if (e instanceof ToolError) throw e;
    throw fsError(e, shown);
  } finally {
    await handle.close();
  }
}

async function create(abs: string, shown: string, input: EditorInput): Promise<string> {
  const text = requireString(input.file_text, 'file_text', 'create');
  let existed = false;
  try {
    const s = await stat(abs);
    if (s.isDirectory()) throw new ToolError(`${shown} is a directory; create needs a file path`);
    existed = true;
  } catch (e) {
    if (e instanceof ToolError) throw e;
  }
  try {
    await mkdir(dirname(abs), { recursive: true });
  } catch (e) {
    throw fsError(e, dirname(shown));
  }
  await writeText(abs, shown, text);
  return existed ? `File overwritten: ${shown}` : `File created: ${shown}`;
}

/** Runs one editor call; returns the text for the model or throws ToolError. */
export async function runTextEditor(cwd: string, input: EditorInput): Promise<string> {
  const command = input.command;
  if (typeof input.path !== 'string' || input.path === '') throw new ToolError('the editor needs `path` (a string)');
  let abs: string;
  try {
    abs = await resolveInside(cwd, input.path);
  } catch (e) {
    if (e instanceof PathEscapeError) throw new ToolError(e.message);
    throw e;
  }
  const shown = input.path;
  switch (command) {
    case 'view':
      return view(abs, shown, input);
    case 'create':
      return create(abs, shown, input);
    case 'str_replace':
      return strReplace(abs, shown, input);
    case 'insert':
      return insert(abs, shown, input);
    default:
      throw new ToolError(`unknown editor command ${JSON.stringify(command)}; use view, create, str_replace or insert`);
  }
}

/** One line for the transcript and the tool event. */
export function summarizeEditor(input: EditorInput): string {
  const command = typeof input.command === 'string' ? input.command : '?';
  const path = typeof input.path === 'string' ? input.path : '?';
  const range = Array.isArray(input.view_range) ? ` [${input.view_range.join(', ')}]` : '';
  return `${command} ${path}${range}`;
}
