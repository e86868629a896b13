// Each iteration's prompt: ralph's instructions (full for iterations 1–3 and after a fresh start,
// condensed from iteration 4), the plan, and the message of this iteration (first, continue,
// resume after a bailout) with any rejection feedback. An iteration that continues the agent's
// own session (it already holds the instructions and the plan) gets the short `continue` prompt:
// the condensed reminder and what changed, without the plan (docs/agents.md).
import type { Prompt } from '../executors/types.js';
import { render, type Templates } from './templates.js';

export type PromptKind = 'full' | 'condensed' | 'resume' | 'continue';

export interface PromptInput {
  templates: Templates;
  iteration: number;
  maxIterations: number;
  cwd: string;
  planPath: string;
  planId: string;
  planText: string;
  summaryPath: string;
  /** A fresh context: first iteration, or after a bailout / interrupt / context budget. */
  fresh: boolean;
  /** Why the previous context ended, for the resume message. */
  resumeReason?: string;
  progress?: string;
  observations?: string;
  /** Rejection feedback from the previous iteration. */
  feedback?: string;
  /** The executor continues the same conversation, which already holds the full prompt. */
  continuesSession?: boolean;
}

export const CONDENSED_FROM_ITERATION = 4;

export function promptKind(input: Pick<PromptInput, 'iteration' | 'fresh' | 'resumeReason' | 'continuesSession'>): PromptKind {
  if (input.fresh && input.resumeReason !== undefined) return 'resume';
  if (!input.fresh && input.continuesSession === true) return 'continue';
  if (input.fresh || input.iteration < CONDENSED_FROM_ITERATION) return 'full';
  return 'condensed';
}

export function buildPrompt(input: PromptInput): { prompt: Prompt; kind: PromptKind } {
  const kind = promptKind(input);
  const vars = {
    iteration: input.iteration,
    max_iterations: input.maxIterations,
    cwd: input.cwd,
    plan_path: input.planPath,
    plan_id: input.planId,
    summary_path: input.summaryPath,
    reason: input.resumeReason ?? '',
    progress: input.progress?.trim() || '(none recorded)',
    observations: input.observations?.trim() || '(none recorded)',
  };
  const t = input.templates;
  const instructions = render(kind === 'condensed' || kind === 'continue' ? t['instructions-condensed'] : t['instructions-full'], vars).trim();
  const base =
    kind === 'resume' ? t['message-resume'] : input.iteration === 1 && input.fresh ? t['message-first'] : t['message-continue'];
  const message = [render(base, vars).trim(), input.feedback?.trim()].filter(Boolean).join('\n\n');
  if (kind === 'continue') return { kind, prompt: { instructions, plan: '', message, text: `${instructions}\n\n${message}\n` } };
  const plan = `# The plan (${input.planPath})\n\n${input.planText.trim()}`;
  return { kind, prompt: { instructions, plan, message, text: `${instructions}\n\n${plan}\n\n${message}\n` } };
}
