// Reading a record's `at` as a number, so grouping compares times without a Date.parse each.

/**
 * Epoch ms of an `at` value, -Infinity when unreadable. The canonical form ralph writes
 * (`YYYY-MM-DDTHH:MM:SS.mmmZ`) is read by hand, which is several times cheaper than Date.parse;
 * anything else, or any field out of the always-valid ranges, goes to Date.parse.
 */
export function timeOf(at: string): number {
  if (at.length === 24 && at.charCodeAt(23) === 90 && at.charCodeAt(10) === 84) {
    const y = digits(at, 0, 4);
    const mo = digits(at, 5, 2);
    const d = digits(at, 8, 2);
    const h = digits(at, 11, 2);
    const mi = digits(at, 14, 2);
    const sec = digits(at, 17, 2);
    const ms = digits(at, 20, 3);
    if (
      at.charCodeAt(4) === 45 && at.charCodeAt(7) === 45 && at.charCodeAt(13) === 58 && at.charCodeAt(16) === 58 && at.charCodeAt(19) === 46 &&
      y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && d <= 28 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59 && ms >= 0
    ) {
      return ((((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60 + sec) * 1000) + ms;
    }
  }
  const t = Date.parse(at);
  return Number.isNaN(t) ? -Infinity : t;
}

/** timeOf() of the UTF-8 text `bytes[from, to)`, read without decoding it when canonical. */
export function timeOfBytes(bytes: Buffer, from: number, to: number): number {
  if (to - from === 24 && bytes[from + 23] === 90 && bytes[from + 10] === 84) {
    const y = byteDigits(bytes, from, 4);
    const mo = byteDigits(bytes, from + 5, 2);
    const d = byteDigits(bytes, from + 8, 2);
    const h = byteDigits(bytes, from + 11, 2);
    const mi = byteDigits(bytes, from + 14, 2);
    const sec = byteDigits(bytes, from + 17, 2);
    const ms = byteDigits(bytes, from + 20, 3);
    if (
      bytes[from + 4] === 45 && bytes[from + 7] === 45 && bytes[from + 13] === 58 && bytes[from + 16] === 58 && bytes[from + 19] === 46 &&
      y >= 1000 && mo >= 1 && mo <= 12 && d >= 1 && d <= 28 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59 && ms >= 0
    ) {
      return ((((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60 + sec) * 1000) + ms;
    }
  }
  return timeOf(bytes.toString('utf8', from, to));
}

function byteDigits(bytes: Uint8Array, start: number, count: number): number {
  let n = 0;
  for (let i = start; i < start + count; i++) {
    const c = bytes[i]! - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil): integer
 *  arithmetic, where Date.UTC showed up in profiles. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The decimal number in `count` characters from `start`, or -1 if any is not a digit. */
function digits(s: string, start: number, count: number): number {
  let n = 0;
  for (let i = start; i < start + count; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}
