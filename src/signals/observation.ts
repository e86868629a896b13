// One <observation> element → one findings record. Agent text is untrusted: the XML parser runs
// with entity expansion off, and nothing it returns is trusted until zod has validated it.
import { createRequire } from 'node:module';
import { z } from 'zod';
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES } from '../contract.js';
import { isSimpleElement, readFlatElement, valueOf } from './simple-xml.js';

type Fxp = typeof import('fast-xml-parser');

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

/** Entity references stay as written: DOCTYPE declarations are dropped, never stored or expanded. */
const INERT_ENTITIES = {
  setExternalEntities: () => {},
  addInputEntities: () => {},
  reset: () => {},
  decode: (text: string) => text,
  setXmlVersion: () => {},
};

let fxp: { parser: InstanceType<Fxp['XMLParser']>; validate: Fxp['XMLValidator']['validate'] } | undefined;

/**
 * fast-xml-parser, loaded when the first observation closes. Its one-file CommonJS build loads in
 * a fraction of the time of its ES module tree (~25 files), and a transcript without observations
 * never pays for it.
 */
function xml(): NonNullable<typeof fxp> {
  if (fxp) return fxp;
  const { XMLParser, XMLValidator } = createRequire(import.meta.url)('fast-xml-parser') as Fxp;
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    processEntities: false,
    htmlEntities: false,
    // A shared inert decoder: the default one is built afresh for every document.
    entityDecoder: INERT_ENTITIES,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: () => false,
    // Callbacks get the path matcher, not a path string built for every tag.
    jPath: false,
  });
  fxp = { parser, validate: XMLValidator.validate };
  return fxp;
}

const observationSchema = z.object({
  type: z.enum(OBSERVATION_TYPES),
  severity: z.enum(SEVERITIES),
  // Checked trimmed (see trimmed()): zod's own trim() costs more than the rest of the check.
  title: z.string().min(1, 'is empty'),
  detail: z.string().min(1, 'is empty'),
  file: z.string().min(1).nullable(),
  action: z.enum(ACTIONS),
});

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Only XML's five predefined entities and character references; never DTD-declared ones. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
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

/** The fields an observation is judged on, before validation; values as the agent wrote them. */
export interface ObservationFields {
  type: string | null | undefined;
  severity: string | null | undefined;
  title: string | null | undefined;
  detail: string | null | undefined;
  file: string | null | undefined;
  action: string | null | undefined;
}

/** The fields from an element's attributes and children, however the element was read. */
function fieldsOf(attribute: (name: string) => unknown, child: (name: string) => unknown): ObservationFields {
  return {
    type: textOf(attribute('type')),
    severity: textOf(attribute('severity')),
    title: textOf(child('title')),
    detail: textOf(child('detail')),
    file: textOf(child('file')) || null,
    action: textOf(child('action')) || 'none',
  };
}

/** The fields of an element of the flat shape nearly every agent writes, or undefined for any other. */
export function flatFields(raw: string): ObservationFields | undefined {
  const el = readFlatElement(raw);
  if (el === undefined || el.name !== 'observation') return undefined;
  return fieldsOf(
    (name) => valueOf(el.attributes, name),
    (name) => valueOf(el.children, name),
  );
}

/** The fields as fast-xml-parser reads the element, or why it cannot. */
export function xmlFields(raw: string): ObservationFields | { error: string } {
  let parsed: unknown;
  try {
    const { parser, validate } = xml();
    // The validator is the slow half; an element of the plain shape agents write is well-formed
    // by construction (a strict subset of what the validator accepts, checked by a property test).
    if (!isSimpleElement(raw)) {
      const check = validate(raw);
      if (check !== true) return { error: `not well-formed XML: ${check.err.msg} (line ${check.err.line})` };
    }
    parsed = parser.parse(raw);
  } catch (error) {
    return { error: `not parseable XML: ${error instanceof Error ? error.message : String(error)}` };
  }
  const root = parsed !== null && typeof parsed === 'object' ? field(parsed as Record<string, unknown>, 'observation') : undefined;
  if (root === null || typeof root !== 'object') return { error: 'the <observation> element has no content' };
  const el = root as Record<string, unknown>;
  return fieldsOf(
    (name) => field(el, `@${name}`),
    (name) => field(el, name),
  );
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

  // The flat shape is read without fast-xml-parser (the same answer, held to it by a property
  // test, in a small part of the time); anything else is fast-xml-parser's to read.
  const fields = flatFields(raw) ?? xmlFields(raw);
  if ('error' in fields) return invalid(fields.error);
  const candidate: Record<keyof ObservationFields, unknown> = fields;
  const result = observationSchema.safeParse(trimmed(fields));
  if (!result.success) {
    const why = result.error.issues
      .map((issue) => {
        const key = String(issue.path[0] ?? 'observation');
        const value = candidate[key as keyof ObservationFields];
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
  return { valid: true, ...result.data };
}

function trimmed(f: ObservationFields): ObservationFields {
  const trim = (v: string | null | undefined) => (typeof v === 'string' ? v.trim() : v);
  return { type: f.type, severity: f.severity, title: trim(f.title), detail: trim(f.detail), file: trim(f.file), action: f.action };
}
