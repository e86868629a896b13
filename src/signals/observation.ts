// One <observation> element → one findings record. Agent text is untrusted: the XML parser runs
// with entity expansion off, and nothing it returns is trusted until zod has validated it.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { z } from 'zod';
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES } from '../contract.js';

export interface ObservationRecord {
  valid: boolean;
  type: string | null;
  severity: string | null;
  title: string | null;
  detail: string | null;
  file: string | null;
  action: string | null;
  /** The element as the agent wrote it; kept only for invalid observations. */
  raw?: string;
  /** Why it is invalid. */
  error?: string;
}

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: () => false,
});

const observationSchema = z.object({
  type: z.enum(OBSERVATION_TYPES),
  severity: z.enum(SEVERITIES),
  title: z.string().trim().min(1, 'is empty'),
  detail: z.string().trim().min(1, 'is empty'),
  file: z.string().trim().min(1).nullable(),
  action: z.enum(ACTIONS),
});

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Only XML's five predefined entities and character references; never DTD-declared ones. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|lt|gt|amp|quot|apos);/g, (whole, ref: string) => {
    if (ref[0] !== '#') return PREDEFINED[ref] ?? whole;
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function textOf(value: unknown): string | null | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return decodeEntities(value);
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, '#text')) {
    const t = (value as Record<string, unknown>)['#text'];
    return typeof t === 'string' ? decodeEntities(t) : null;
  }
  return value === '' ? '' : null;
}

function field(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

export function parseObservation(raw: string): ObservationRecord {
  const invalid = (error: string, partial: Partial<ObservationRecord> = {}): ObservationRecord => ({
    valid: false,
    type: null,
    severity: null,
    title: null,
    detail: null,
    file: null,
    action: null,
    ...partial,
    raw,
    error,
  });

  let parsed: unknown;
  try {
    const check = XMLValidator.validate(raw);
    if (check !== true) return invalid(`not well-formed XML: ${check.err.msg} (line ${check.err.line})`);
    parsed = xml.parse(raw);
  } catch (error) {
    return invalid(`not parseable XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const root = parsed !== null && typeof parsed === 'object' ? field(parsed as Record<string, unknown>, 'observation') : undefined;
  if (root === null || typeof root !== 'object') return invalid('the <observation> element has no content');
  const el = root as Record<string, unknown>;

  const candidate = {
    type: textOf(field(el, '@type')),
    severity: textOf(field(el, '@severity')),
    title: textOf(field(el, 'title')),
    detail: textOf(field(el, 'detail')),
    file: textOf(field(el, 'file')) || null,
    action: textOf(field(el, 'action')) || 'none',
  };
  const result = observationSchema.safeParse(candidate);
  if (!result.success) {
    const why = result.error.issues
      .map((issue) => {
        const key = String(issue.path[0] ?? 'observation');
        const value = (candidate as Record<string, unknown>)[key];
        const where = key === 'type' || key === 'severity' ? `attribute ${key}` : `<${key}>`;
        if (value === undefined || value === null) return `${where} is missing`;
        if (issue.code === 'invalid_value') return `${where} "${String(value)}" is not one of: ${(issue.values as unknown[]).join(', ')}`;
        return `${where} ${issue.message}`;
      })
      .join('; ');
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return invalid(why, {
      type: str(candidate.type),
      severity: str(candidate.severity),
      title: str(candidate.title),
      detail: str(candidate.detail),
      file: str(candidate.file),
      action: str(candidate.action),
    });
  }
  return { valid: true, ...result.data, title: result.data.title.trim(), detail: result.data.detail.trim() };
}
