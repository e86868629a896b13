// The prompt of each iteration (src/prompts/): which kind, what it carries, and the token
// budgets of ralph's own text (instructions + message, measured as chars/4).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { buildPrompt, promptKind, type PromptInput } from '../../src/prompts/build-prompt.js';
import { loadTemplates, render, TEMPLATE_NAMES } from '../../src/prompts/templates.js';

const templates = loadTemplates();

/** Paths as they look in real repositories: a plain plans/ folder, and a GSD-style phase folder. */
const REALISTIC = [
  {
    name: 'plans/ folder',
    cwd: '/home/dev/src/acme-api',
    planPath: '/home/dev/src/acme-api/plans/add-rate-limiting.md',
    planId: 'add-rate-limiting',
    summaryPath: '/home/dev/src/acme-api/plans/add-rate-limiting.summary.json',
  },
  {
    name: 'GSD phase folder',
    cwd: '/home/developer/projects/acme-widgets-service',
    planPath: '/home/developer/projects/acme-widgets-service/.planning/phases/02-api-hardening/02-03-rate-limit-PLAN.md',
    planId: '02-03-rate-limit',
    summaryPath: '/home/developer/projects/acme-widgets-service/.planning/phases/02-api-hardening/02-03-rate-limit-PLAN.summary.json',
  },
];

const PLAN_TEXT = '---\nid: p\n---\n# Plan\n\n<tasks>\n<task><name>Task 1</name></task>\n</tasks>\n\n## Progress\nTask 1 half done.\n';

function input(o: Partial<PromptInput> = {}): PromptInput {
  return { templates, iteration: 1, maxIterations: 20, ...REALISTIC[0]!, planText: PLAN_TEXT, fresh: true, ...o };
}

const tokens = (p: { instructions: string; message: string }) => (p.instructions.length + p.message.length) / 4;

describe('promptKind', () => {
  it.each([
    [{ iteration: 1, fresh: true }, 'full'],
    [{ iteration: 2, fresh: false }, 'full'],
    [{ iteration: 3, fresh: false }, 'full'],
    [{ iteration: 4, fresh: false }, 'condensed'],
    [{ iteration: 17, fresh: false }, 'condensed'],
    [{ iteration: 5, fresh: true }, 'full'],
    [{ iteration: 2, fresh: true, resumeReason: 'context full' }, 'resume'],
    [{ iteration: 9, fresh: true, resumeReason: 'context full' }, 'resume'],
    [{ iteration: 2, fresh: false, continuesSession: true }, 'continue'],
    [{ iteration: 2, fresh: true, continuesSession: true }, 'full'],
  ] as const)('%j → %s', (i, kind) => {
    expect(promptKind(i)).toBe(kind);
  });
});

describe('buildPrompt', () => {
  it('iteration 1: full instructions, the plan, the first message, in that order', () => {
    const { prompt, kind } = buildPrompt(input());
    expect(kind).toBe('full');
    expect(prompt.message).toBe(templates['message-first'].trim());
    expect(prompt.plan).toContain(PLAN_TEXT.trim());
    expect(prompt.plan).toContain(REALISTIC[0]!.planPath);
    expect(prompt.text).toBe(`${prompt.instructions}\n\n${prompt.plan}\n\n${prompt.message}\n`);
    expect(prompt.instructions).toContain(REALISTIC[0]!.summaryPath);
    expect(prompt.instructions).toContain('"add-rate-limiting"');
  });

  it('later iterations continue; rejection feedback is appended to the message word for word', () => {
    const feedback = 'Your completion claim (PLAN_COMPLETE) was rejected: verify command `npm test` exited 1; the tail of its output:\n2 failing';
    const { prompt } = buildPrompt(input({ iteration: 2, fresh: false, feedback }));
    expect(prompt.message.startsWith(render(templates['message-continue'], { iteration: 2 }).trim())).toBe(true);
    expect(prompt.message.endsWith(feedback)).toBe(true);
  });

  it('a resumed session (it holds the prompt already): the condensed reminder and the message, not the plan; at most a quarter of the first', () => {
    const feedback = 'Your completion claim (PLAN_COMPLETE) was rejected: the summary file is missing';
    const first = buildPrompt(input());
    const { prompt, kind } = buildPrompt(input({ iteration: 2, fresh: false, continuesSession: true, feedback }));
    expect(kind).toBe('continue');
    expect(prompt.plan).toBe('');
    expect(prompt.text).not.toContain(PLAN_TEXT.trim());
    expect(prompt.text).toContain(feedback);
    expect(prompt.text).toContain('###PLAN_COMPLETE###');
    expect(prompt.text.length).toBeLessThan(first.prompt.text.length / 2); // a tiny plan: bench/prompt-size.bench.mjs measures a real one
  });

  it('resume: the reason, the Progress and the Observations sections', () => {
    const { prompt, kind } = buildPrompt(
      input({ iteration: 6, fresh: true, resumeReason: 'context window nearly full', progress: 'Task 1 done; Task 2 next', observations: 'the API is slow' }),
    );
    expect(kind).toBe('resume');
    expect(prompt.message).toContain('context window nearly full');
    expect(prompt.message).toContain('Task 1 done; Task 2 next');
    expect(prompt.message).toContain('the API is slow');
    expect(prompt.instructions).toBe(buildPrompt(input()).prompt.instructions.replace('iteration 1 of', 'iteration 6 of'));
  });

  it('resume without Progress or Observations says so instead of leaving a blank', () => {
    const { prompt } = buildPrompt(input({ iteration: 2, fresh: true, resumeReason: 'r' }));
    expect(prompt.message).toContain('(none recorded)');
  });

  it('every placeholder of every built-in template is filled, in every kind of prompt', () => {
    const kinds = [
      input(),
      input({ iteration: 2, fresh: false, feedback: 'x' }),
      input({ iteration: 4, fresh: false }),
      input({ iteration: 4, fresh: true, resumeReason: 'r', progress: 'p', observations: 'o' }),
    ];
    for (const i of kinds) expect(buildPrompt(i).prompt.text).not.toMatch(/\{\{\w+\}\}/);
  });
});

describe.each(REALISTIC)('token budgets (chars/4) with realistic paths: $name', (paths) => {
  const base = { ...input(), ...paths, maxIterations: 20 };

  it('full prompt (iterations 1–3, and a fresh context): instructions + message ≤ 800 tokens', () => {
    for (const i of [
      { ...base, iteration: 1, fresh: true },
      { ...base, iteration: 2, fresh: false },
      { ...base, iteration: 3, fresh: false },
      { ...base, iteration: 12, fresh: true },
    ]) {
      const { prompt, kind } = buildPrompt(i);
      expect(kind).toBe('full');
      expect(tokens(prompt), `iteration ${i.iteration}`).toBeLessThanOrEqual(800);
    }
  });

  it('resume prompt after a bailout (short Progress): instructions + message ≤ 800 tokens', () => {
    const { prompt, kind } = buildPrompt({
      ...base,
      iteration: 20,
      fresh: true,
      resumeReason: 'context window nearly full after the migration',
      progress: 'Task 1 done; Task 2 next.',
      observations: 'None yet.',
    });
    expect(kind).toBe('resume');
    expect(tokens(prompt)).toBeLessThanOrEqual(800);
  });

  it('condensed prompt (iteration 4 on, same context): instructions + message ≤ 150 tokens at every iteration', () => {
    for (let iteration = 4; iteration <= base.maxIterations; iteration++) {
      const { prompt, kind } = buildPrompt({ ...base, iteration, fresh: false });
      expect(kind).toBe('condensed');
      expect(tokens(prompt), `iteration ${iteration}/${base.maxIterations}: ${prompt.instructions.length + prompt.message.length} chars`).toBeLessThanOrEqual(150);
    }
  });
});

describe('loadTemplates', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('--prompts DIR overrides templates by file name; the others stay built in', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-prompts-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'message-first.md'), 'Custom first message for {{plan_id}}.');
    const custom = loadTemplates(dir);
    expect(custom['message-first']).toBe('Custom first message for {{plan_id}}.');
    for (const name of TEMPLATE_NAMES.filter((n) => n !== 'message-first')) expect(custom[name]).toBe(templates[name]);
    expect(buildPrompt(input({ templates: custom })).prompt.message).toBe('Custom first message for add-rate-limiting.');
  });

  it('a --prompts folder that does not exist is a usage error', () => {
    expect(() => loadTemplates('/nonexistent/ralph-prompts')).toThrow(UsageError);
  });

  it('render leaves unknown placeholders as written', () => {
    expect(render('{{a}} and {{b}}', { a: 1 })).toBe('1 and {{b}}');
  });
});
