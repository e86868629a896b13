// What makes two findings the same one: type, title and file, normalised (case, whitespace and
// punctuation in titles; ./ and backslashes in file names). See docs/report.md.
import type { ObservationType } from '../../contract.js';

const PUNCTUATION = /[\p{P}\p{S}]+/gu;
const SPACES = /\s+/g;
const NON_ASCII = /[^\x00-\x7f]/;
const NON_ALNUM_ASCII = /[^a-z0-9]+/g;

/** Case, whitespace and punctuation do not make a different finding. */
export function normaliseTitle(title: string): string {
  // In ASCII, punctuation, symbols and spaces are exactly the non-alphanumerics: one pass.
  if (!NON_ASCII.test(title)) return title.toLowerCase().replace(NON_ALNUM_ASCII, ' ').trim();
  return title.normalize('NFKC').toLowerCase().replace(PUNCTUATION, ' ').replace(SPACES, ' ').trim();
}

export function normaliseFile(file: string | null): string {
  if (file === null) return '';
  let f = file.trim();
  if (f.includes('\\')) f = f.replace(/\\/g, '/');
  while (f.startsWith('./')) f = f.slice(2);
  return f;
}

/** The identity of a group: what two records must share to be the same finding. */
export function groupKey(type: ObservationType, title: string, file: string | null): string {
  return `${type}\u0000${normaliseTitle(title)}\u0000${normaliseFile(file)}`;
}
