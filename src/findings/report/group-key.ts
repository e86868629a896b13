// What makes two findings the same one: type, title and file, normalised (case, whitespace and
// punctuation in titles; ./ and backslashes in file names), and the hashes group.ts looks them up
// by, from strings or, for lines the scanner read, from their bytes (the two must agree).
import type { ObservationType } from '../../contract.js';

const PUNCTUATION = /[\p{P}\p{S}]+/gu;
const SPACES = /\s+/g;

/** Case, whitespace and punctuation do not make a different finding. */
const NON_ASCII = /[^\x00-\x7f]/;
const NON_ALNUM_ASCII = /[^a-z0-9]+/g;

export function normaliseTitle(title: string): string {
  // In ASCII, punctuation, symbols and spaces are exactly the non-alphanumerics: one cheap pass.
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

/** The identity of a group as text: what two records must share to be the same finding. */
export function groupKey(type: ObservationType, title: string, file: string | null): string {
  return `${type}\u0000${normaliseTitle(title)}\u0000${normaliseFile(file)}`;
}

// 32-bit FNV-1a over the characters of the normalised identity.
export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/**
 * Hash of normaliseTitle(title) without building it: for ASCII the normalisation is "lower-case,
 * each run of non-alphanumerics one space, trimmed", which a single pass can hash as it goes.
 * Other titles take the general path; both hash the same characters, so they agree.
 */
export function hashTitle(title: string, seed: number): number {
  // An ASCII title is hashed as its bytes, as the scanned path hashes it: one way to hash, so both
  // always agree.
  if (!NON_ASCII.test(title)) return hashTitleBytes(Buffer.from(title, 'latin1'), 0, title.length, seed);
  return hashText(normaliseTitle(title), seed);
}

/** What the byte hashes give for text they cannot hash as it is (not ASCII, or not normalised);
 *  outside the 32-bit range of real hashes. */
export const NOT_PLAIN = 2 ** 32;

/** hashTitle() of ASCII bytes, or NOT_PLAIN. */
export function hashTitleBytes(b: Uint8Array, from: number, to: number, seed: number): number {
  let h = seed;
  let started = false;
  let gap = false;
  for (let i = from; i < to; i++) {
    let c = b[i]!;
    if (c >= 128) return NOT_PLAIN;
    if (c >= 65 && c <= 90) c += 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (gap && started) h = Math.imul(h ^ 32, FNV_PRIME);
      h = Math.imul(h ^ c, FNV_PRIME);
      started = true;
      gap = false;
    } else {
      gap = true;
    }
  }
  return h;
}

/** hashText(normaliseFile(file)) of a file name in ASCII bytes that normalising leaves as it is
 *  (no '\\', no leading './'; its ends are not spaces, see isPlainFinding), or NOT_PLAIN. */
export function hashFileBytes(b: Uint8Array, from: number, to: number, seed: number): number {
  if (b[from] === 0x2e && b[from + 1] === 0x2f) return NOT_PLAIN;
  let h = seed;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c >= 128 || c === 0x5c) return NOT_PLAIN;
    h = Math.imul(h ^ c, FNV_PRIME);
  }
  return h;
}

export function hashText(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

export function sameTitle(a: string, b: string): boolean {
  return a === b || normaliseTitle(a) === normaliseTitle(b);
}
