// Markdown sections by heading: the executor keeps `## Progress` and `## Observations` up to date,
// and the resume prompt carries them to the next context.
import { linesWithFences } from './fences.js';

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;

interface Heading {
  level: number;
  text: string;
}

function headingOf(line: string): Heading | undefined {
  const m = ATX.exec(line);
  if (!m) return undefined;
  return { level: m[1]!.length, text: (m[2] ?? '').trim() };
}

/**
 * The text under a heading, up to the next heading of level <= 2 (or <= its own level when it is
 * deeper), without leading blank lines and trailing whitespace; undefined when there is no such
 * heading. `heading` is the heading's text ("Progress", matched case-insensitively at level 1 or
 * 2) or a full heading ("### Notes", matched at exactly that level). Headings inside code fences
 * do not count, so a `# comment` in a shell snippet does not end a section.
 */
export function extractSection(markdown: string, heading: string): string | undefined {
  const wanted = headingOf(heading.trim());
  const wantedText = (wanted ? wanted.text : heading.trim()).toLowerCase();
  const matches = (h: Heading): boolean =>
    h.text.toLowerCase() === wantedText && (wanted ? h.level === wanted.level : h.level <= 2);

  const lines: string[] = [];
  let endLevel: number | undefined;
  for (const { line, fenced } of linesWithFences(markdown)) {
    const h = fenced ? undefined : headingOf(line);
    if (endLevel === undefined) {
      if (h && matches(h)) endLevel = Math.max(h.level, 2);
      continue;
    }
    if (h && h.level <= endLevel) break;
    lines.push(line);
  }
  if (endLevel === undefined) return undefined;
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  return lines.join('\n').trimEnd();
}
