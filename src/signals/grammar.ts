// The grammar of one signal line (docs/signals.md#signal-grammar). Called only for lines that, trimmed, start and end
// with ###, so it may allocate freely.
import { SIGNAL_GRAMMAR, SIGNAL_NAMES, type SignalClass, type SignalName } from '../contract.js';

export type LineVerdict =
  | { kind: 'signal'; name: SignalName; class: SignalClass; args: string[] }
  | { kind: 'malformed'; why: string };

const NAMES = new Set<string>(SIGNAL_NAMES);
const INTEGER = /^-?\d+$/;

/** `inner` is the trimmed line without its leading and trailing ###. */
export function classifySignal(inner: string): LineVerdict {
  const colon = inner.indexOf(':');
  const name = colon === -1 ? inner : inner.slice(0, colon);
  if (!NAMES.has(name)) {
    return { kind: 'malformed', why: name === '' ? 'no signal name' : `unknown signal name "${name}"` };
  }
  const grammar = SIGNAL_GRAMMAR[name as SignalName];
  const rest = colon === -1 ? undefined : inner.slice(colon + 1);

  if (grammar.args.length === 0) {
    return rest === undefined
      ? { kind: 'signal', name: name as SignalName, class: grammar.class, args: [] }
      : { kind: 'malformed', why: `${name} takes no argument` };
  }
  if (rest === undefined) return { kind: 'malformed', why: `${name} needs ${describe(grammar.args)}` };
  if (rest.includes('#')) return { kind: 'malformed', why: `${name} arguments may not contain #` };
  if (rest.includes('\r')) return { kind: 'malformed', why: `${name} arguments may not contain a line break` };

  let args: string[];
  if (grammar.args.length === 1) {
    args = [rest];
  } else {
    // TEST_FAILED:{project}:{count}: the count is the last field, so a project may hold colons.
    const last = rest.lastIndexOf(':');
    if (last === -1) return { kind: 'malformed', why: `${name} needs ${describe(grammar.args)}` };
    args = [rest.slice(0, last), rest.slice(last + 1)];
  }
  for (let i = 0; i < args.length; i++) {
    if (args[i]!.trim() === '') return { kind: 'malformed', why: `${name}: ${grammar.args[i]} is empty` };
  }
  // The one integer argument of the grammar: TEST_FAILED's count.
  if (grammar.args[1] === 'count' && !INTEGER.test(args[1]!)) {
    return { kind: 'malformed', why: `${name}: count "${args[1]}" is not an integer` };
  }
  return { kind: 'signal', name: name as SignalName, class: grammar.class, args };
}

function describe(args: readonly string[]): string {
  return args.map((a) => `{${a}}`).join(':');
}
