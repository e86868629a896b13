// `${VAR}` in the config file's strings (docs/config.md): webhook URLs and tokens stay out of
// the committed file. `${VAR:-default}` when VAR may be unset; `$${VAR}` writes a literal `${VAR}`.
import { FACT_VARS } from '../contract.js';

export type Path = (string | number)[];

export interface Expansion {
  value: unknown;
  /** Variables an expanded string referred to, with where. */
  used: { name: string; path: Path }[];
  /** Variables that were unset (and had no default), with where. */
  missing: { name: string; path: Path }[];
}

const FACTS: ReadonlySet<string> = new Set(FACT_VARS);
const REFERENCE = /\$(\$)?\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandEnv(value: unknown, env: NodeJS.ProcessEnv): Expansion {
  const used: Expansion['used'] = [];
  const missing: Expansion['missing'] = [];
  const walk = (v: unknown, path: Path): unknown => {
    if (typeof v === 'string') {
      return v.replace(REFERENCE, (whole, escaped: string | undefined, name: string, fallback: string | undefined) => {
        if (escaped) return whole.slice(1);
        // ralph's own facts (RALPH_PLAN_ID, …) exist only when a hook runs: left for its shell.
        if (FACTS.has(name)) return whole;
        used.push({ name, path });
        const set = env[name];
        if (set !== undefined && set !== '') return set;
        if (fallback !== undefined) return fallback;
        missing.push({ name, path });
        return '';
      });
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...path, i]));
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, [...path, k])]));
    }
    return v;
  };
  return { value: walk(value, []), used, missing };
}
