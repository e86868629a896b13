// A pull request's body with hostile agent text everywhere the agent has a say (task names and
// statuses, findings, reasons, evidence), rendered as GitHub renders Markdown: nothing the agent
// wrote becomes a link, an image, HTML, a mention or a table cell of its own.
import { describe, expect, it } from 'vitest';
import { planMarker, prBody, prTitle } from '../../src/deliver/pr-body.js';
import type { RunFacts } from '../../src/deliver/run-facts.js';
import { HOSTILE_TEXT, inspectGfm } from '../util/gfm.js';

const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  planId: 'p1',
  planPath: '/r/plans/p1.md',
  outcome: 'complete',
  reason: 'accepted',
  iterations: 2,
  costUsd: 0.5,
  durationMs: 125_000,
  objective: 'Ship the widget.\nWith tests.',
  tasks: [
    { name: 'build', status: 'done' },
    { name: 'docs', status: null },
  ],
  verify: [
    { command: 'npm test', ran: { command: 'npm test', exitCode: 0, timedOut: false, durationMs: 3_400 } },
    { command: 'npm run lint', ran: { command: 'npm run lint', exitCode: 2, timedOut: false, durationMs: 900 } },
    { command: 'slow', ran: { command: 'slow', exitCode: null, timedOut: true, durationMs: 600_000 } },
    { command: 'never', ran: null },
  ],
  findings: [{ type: 'bug', severity: 'high', title: 'off by one', file: 'src/a.ts' }],
  blocked: null,
  runDir: '.ralph/batches/b/runs/p1',
  ...over,
});

describe('prBody', () => {
  it('names each verify command with its result and duration, the tasks, findings, iterations, time, cost and run folder', () => {
    const body = prBody(facts(), { draft: false, branch: 'ralph/b/p1', commit: 'abcdef0123456789' });
    expect(body.startsWith(planMarker('p1'))).toBe(true);
    expect(body).toContain('| npm test | passed | 3s |');
    expect(body).toContain('| npm run lint | **failed** (exit 2) | 900ms |');
    expect(body).toContain('| slow | **timed out** | 10m |');
    expect(body).toContain('| never | not run | - |');
    expect(body).toContain('| build | done |');
    expect(body).toContain('| docs | not reported |');
    expect(body).toContain('- **high** bug: off by one (src/a.ts)');
    expect(body).toContain('- Iterations: 2\n- Time: 2m5s\n- Cost: $0.5000\n- Branch: ralph/b/p1 at abcdef012345\n- Run files: .ralph/batches/b/runs/p1');
    expect(body).toContain('> Ship the widget.\n> With tests.');
    expect(body).not.toContain('Why this is a draft');
  });

  it('hostile agent text stays inert text', () => {
    const body = prBody(
      facts({
        outcome: 'blocked',
        reason: HOSTILE_TEXT,
        tasks: [{ name: HOSTILE_TEXT, status: HOSTILE_TEXT }],
        findings: [
          { type: 'blocker', severity: 'high', title: HOSTILE_TEXT, file: HOSTILE_TEXT },
          { type: HOSTILE_TEXT, severity: HOSTILE_TEXT, title: 'x', file: null },
        ],
        blocked: `# Blocked\n\`\`\`\n${HOSTILE_TEXT}\n\`\`\`\n`,
      }),
      { draft: true, branch: 'ralph/b/p1', commit: null },
    );
    const seen = inspectGfm(body);
    expect(seen.images).toBe(0);
    expect(seen.hrefs).toEqual([]);
    // Only ralph's own <sub> note is HTML, and the marker comment.
    expect(seen.rawTags.filter((t) => t !== 'sub')).toEqual([]);
    // No mention outside the evidence's code block (GitHub mentions nobody inside one).
    expect(seen.html.replace(/<pre>[\s\S]*?<\/pre>/g, '')).not.toMatch(/@everyone/);
    expect(seen.html).toMatch(/<pre><code class="language-text"># Blocked\n```\n/);
    // Each table row keeps its own number of cells: the agent's pipes made none.
    expect(seen.rowCells.filter((n) => n !== 2 && n !== 3)).toEqual([]);
    expect(body).toContain('### Why this is a draft');
  });

  it('a huge run is cut below GitHub\'s limit', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ type: 'bug', severity: 'low', title: `${'x'.repeat(300)} ${i}`, file: null }));
    const body = prBody(facts({ findings: many, objective: 'o'.repeat(100_000) }), { draft: false, branch: 'b', commit: null });
    expect(body.length).toBeLessThan(65_536);
    expect(body).toContain('… and 450 more');
  });
});

describe('prTitle', () => {
  it('the plan and the first line of its objective, one line, at most 120 characters', () => {
    expect(prTitle(facts())).toBe('ralph: p1: Ship the widget.');
    expect(prTitle(facts({ objective: `\u001b[31m${'w'.repeat(300)}` })).length).toBe(120);
    expect(prTitle(facts({ objective: null }))).toBe('ralph: p1: p1');
  });
});
