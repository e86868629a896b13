// Near misses (docs/parser.md "Near misses"): a line that carries a signal but is not one, and
// what exactly to write instead. Called only for the few lines shaped like one (nearMissShaped in
// quiet-lines.ts) or malformed, so it may allocate.
import { LOOP_COMPLETE_LINE, SIGNAL_GRAMMAR, SIGNAL_NAMES, type NearMissReason, type SignalName } from '../contract.js';
import { classifySignal } from './grammar.js';
import { editDistance } from '../util/did-you-mean.js';

export interface NearMissVerdict {
  reason: NearMissReason;
  /** One sentence: what is wrong, and the line to write. */
  hint: string;
  /** The line to write instead, exactly; `{…}` placeholders where the arguments could not be read; null when no signal is meant. */
  correct: string | null;
}

/** Longest text a near miss quotes (the line, or an argument in `correct`), in characters. */
export const NEAR_MISS_TEXT_MAX = 200;

const NAMES = new Set<string>(SIGNAL_NAMES);
/** Names agents write for a finished plan (TASK_COMPLETE is a claim file, not a signal). */
const ALIASES: Record<string, SignalName> = { TASK_COMPLETE: 'PLAN_COMPLETE', LOOP_COMPLETE: 'PLAN_COMPLETE', COMPLETE: 'PLAN_COMPLETE', DONE: 'PLAN_COMPLETE' };
/**
 * `#`s, a name, an optional `:arguments`, `#`s; blanks around the name as agents type them. A match
 * starts only where a run of # starts: tried from inside a run of a million #, it would take a
 * million steps each time.
 */
const TOKEN = /(?<!#)(#{2,})([ \t]*)([A-Za-z][A-Za-z_]*)(?::([^#]*))?([ \t]*)(#*)/g;
/** Tokens of one line judged at most: a hostile line may hold a million. */
const TOKENS_MAX = 8;
/** What may stand before a signal in Markdown: list, quote, heading, task-box and emphasis marks. */
const MARKDOWN_BEFORE = /^(?:[-+*>#_`~ \t]|\d{1,9}[.)]|\[[ xX]\])*$/;
const MARKDOWN_AFTER = /^[*_`~ \t]*$/;

/** The grammar's form of a signal: `###TEST_FAILED:{project}:{count}###`. */
function template(name: SignalName): string {
  const args = SIGNAL_GRAMMAR[name].args;
  return `###${[name, ...args.map((a) => `{${a}}`)].join(':')}###`;
}

const ALL_SIGNALS = `the signals are ${SIGNAL_NAMES.map(template).join(', ')}`;

/** `text` cut to NEAR_MISS_TEXT_MAX characters (never inside a surrogate pair), with … when cut. */
export function boundText(text: string): string {
  if (text.length <= NEAR_MISS_TEXT_MAX) return text;
  let cut = NEAR_MISS_TEXT_MAX;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

/**
 * Why `line` (trimmed, not a signal or claim) is a near miss, or undefined when it is plain text.
 * `malformedWhy`: the parser called the line malformed (it starts and ends with ###), and why; such
 * a line is always a near miss.
 */
export function nearMiss(line: string, malformedWhy?: string): NearMissVerdict | undefined {
  let tokens = 0;
  for (const m of line.matchAll(TOKEN)) {
    const verdict = judgeToken(line, m, malformedWhy);
    if (verdict) return verdict;
    if (++tokens === TOKENS_MAX) break;
  }
  if (malformedWhy !== undefined) {
    return { reason: 'malformed', hint: `${malformedWhy}; ${ALL_SIGNALS}`, correct: null };
  }
  return loopCompleteNearMiss(line);
}

function judgeToken(line: string, m: RegExpMatchArray, malformedWhy: string | undefined): NearMissVerdict | undefined {
  const [whole, open, blankBefore, written, args, blankAfter, close] = m as unknown as [string, string, string, string, string | undefined, string, string];
  const resolved = resolveName(written);
  if (!resolved) {
    if (malformedWhy === undefined) return undefined;
    return {
      reason: 'unknown_name',
      hint: `"${boundText(written)}" is not a signal name; ${ALL_SIGNALS}`,
      correct: null,
    };
  }
  const { name, how } = resolved;
  const verdict = classifySignal(args === undefined ? name : `${name}:${args}`);
  const correct = verdict.kind === 'signal' ? boundedSignal(name, args) : template(name);
  const write = (extra = '') => `write it alone on its own line${extra}: ${correct}`;
  if (verdict.kind === 'malformed') {
    return { reason: 'malformed', hint: `${malformedWhy ?? verdict.why}; ${write()}`, correct };
  }
  if (how === 'case') return { reason: 'wrong_case', hint: `signal names are upper case; ${write()}`, correct };
  if (how === 'spelling') {
    return { reason: 'unknown_name', hint: `"${boundText(written)}" is not a signal name; did you mean ${name}? ${write()}`, correct };
  }
  if (open.length !== 3 || close.length !== 3 || blankBefore !== '' || blankAfter !== '') {
    return { reason: 'markers', hint: `a signal starts and ends with exactly three #, with nothing between them and the name; ${write()}`, correct };
  }
  const at = m.index!;
  const before = line.slice(0, at);
  const after = line.slice(at + whole.length);
  if (MARKDOWN_BEFORE.test(before) && MARKDOWN_AFTER.test(after)) {
    return { reason: 'markdown', hint: `Markdown around a signal (emphasis, backticks, a list or heading mark) makes it plain text; ${write(', with no formatting')}`, correct };
  }
  return { reason: 'not_alone', hint: `a signal with other text on its line is plain text; ${write(', with nothing before or after it')}`, correct };
}

/** `###NAME:args###` as written, or the template when the arguments are too long to quote. */
function boundedSignal(name: SignalName, args: string | undefined): string {
  if (args === undefined) return `###${name}###`;
  return args.length > NEAR_MISS_TEXT_MAX ? template(name) : `###${name}:${args}###`;
}

/**
 * A signal (or, name undefined, the LOOP_COMPLETE claim) ignored inside a fence or observation
 * that was still open, opened on line `openedOn`, when the output or the message ended.
 */
export function unclosedNearMiss(block: 'fence' | 'observation', openedOn: number, name: SignalName | undefined, args: string[]): NearMissVerdict {
  const correct = name === undefined ? LOOP_COMPLETE_LINE : boundedSignal(name, args.length === 0 ? undefined : args.join(':'));
  const [reason, what, close] =
    block === 'fence'
      ? (['unclosed_fence', `a code fence opened on line ${openedOn} and never closed`, 'close the fence'] as const)
      : (['unclosed_observation', `an <observation> opened on line ${openedOn} and never closed`, 'close it with </observation>'] as const);
  return { reason, hint: `this signal was inside ${what}, so it was not read; ${close} before the signal, or write the signal alone on its own line outside it: ${correct}`, correct };
}

function resolveName(written: string): { name: SignalName; how: 'exact' | 'case' | 'spelling' } | undefined {
  if (NAMES.has(written)) return { name: written as SignalName, how: 'exact' };
  const upper = written.toUpperCase();
  if (NAMES.has(upper)) return { name: upper as SignalName, how: 'case' };
  const alias = ALIASES[upper];
  if (alias) return { name: alias, how: 'spelling' };
  // A typo: at most two letters off a name of the grammar (PLAN_COMPLETED, TASK_FAIL, BLOCKER).
  let best: SignalName | undefined;
  let bestDistance = 3;
  for (const name of SIGNAL_NAMES) {
    const d = editDistance(upper, name, bestDistance);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best ? { name: best, how: 'spelling' } : undefined;
}

/** LOOP_COMPLETE in Markdown, or ending or starting a line of other text. */
function loopCompleteNearMiss(line: string): NearMissVerdict | undefined {
  const at = line.indexOf(LOOP_COMPLETE_LINE);
  if (at === -1) return undefined;
  const before = line.slice(0, at);
  const after = line.slice(at + LOOP_COMPLETE_LINE.length);
  const write = (extra: string) => `write it alone on its own line${extra}: ${LOOP_COMPLETE_LINE} (or ###PLAN_COMPLETE###)`;
  if (MARKDOWN_BEFORE.test(before) && MARKDOWN_AFTER.test(after)) {
    return { reason: 'markdown', hint: `Markdown around ${LOOP_COMPLETE_LINE} makes it plain text; ${write(', with no formatting')}`, correct: LOOP_COMPLETE_LINE };
  }
  // Mentioned inside a sentence, it is more likely talk about the claim than the claim.
  const endsLine = /^[*_`~.!]*$/.test(after) && /[ \t]$/.test(before);
  const startsLine = MARKDOWN_BEFORE.test(before) && /^[*_`~]*[ \t:.!,-]/.test(after);
  if (!endsLine && !startsLine) return undefined;
  return { reason: 'not_alone', hint: `${LOOP_COMPLETE_LINE} with other text on its line is plain text; ${write(', with nothing before or after it')}`, correct: LOOP_COMPLETE_LINE };
}
