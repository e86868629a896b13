// What failed, in one line a person can act on (docs/first-hour.md#what-failed): a failing tool's
// report is often "exit code 1" with the cause on a later line of its output
// (`bwrap: execvp codex-linux-sandbox: No such file or directory`). The first meaningful line of
// the output is quoted beside it, and a line too long is cut at a word, never mid-word.

/** `text` of at most `max` characters, cut at the last space before that when it is longer. */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space >= max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const EXIT_LINE = /^(?:exit(?:ed)?(?: with)?(?: code| status)?|exit code:?) -?\d+\.?$/i;

/** A line with a letter or digit in it: not blank, not a rule of dashes, not a lone bracket. */
function meaningful(line: string): boolean {
  return /[\p{L}\p{N}]/u.test(line);
}

/** The first meaningful line of a tool's failure, with the output's first line beside a bare exit code. */
export function failureLine(error: string, max = 160): string {
  const lines = error.split(/\r?\n/).map((l) => l.trim()).filter(meaningful);
  const [first, second] = lines;
  if (first === undefined) return '(no output)';
  if (second !== undefined && EXIT_LINE.test(first)) return cutAtWord(`${first}: ${second}`, max);
  return cutAtWord(first, max);
}
