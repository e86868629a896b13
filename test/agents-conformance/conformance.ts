// One CLI's conformance tests (docs/agents.md, "The conformance suite"): its pinned install and its
// stand-in up for the file, and the four scenarios every CLI passes alike (complete, toolsignal,
// bailout, resume) checked the same way for each. A CLI's test file says only what is its own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFailure, recordStreams, runScenario, type RunOutcome, type RunSpec } from './harness.js';
import { ensureInstalled, type AgentPackage } from './install.js';
import type { StandInServer } from './stand-in-server.js';

type Usage = StandInServer['reported'];

export interface Cli<A extends StandInServer> {
  pkg: AgentPackage;
  /** Its name in the tests' titles. */
  title: string;
  /** The folder under test/fixtures/agents-real/ that --update-fixtures records its streams into. */
  fixtures: string;
  startStandIn(): Promise<A>;
  /** Its environment and settings files, pointed at the running stand-in. */
  pointAt(api: A): Pick<RunSpec, 'env' | 'homeFiles'>;
  /** The stream format ralph chooses for it (the `agent` event). */
  streamFormat: string;
  /** What it calls a conversation (Codex: thread), and where its stream names the conversation's id. */
  conversation: { word: string; id: RegExp };
  /** Checks of its own after the complete scenario's common ones (`turns`: the model turns served). */
  alsoComplete?(o: RunOutcome, turns: number): void;
  /**
   * How its API refuses for a usage limit (status and body, as the real API sends them), for the
   * limit scenario: refused once, the run waits and completes. Absent for CLIs that retry a refusal
   * by themselves for minutes (Claude Code with a key, Qwen Code, opencode): their limits are
   * replayed from recorded streams instead (test/agents/limit-replays.test.ts).
   */
  limit?: { status: number; body: () => unknown; kind: 'usage' | 'rate' };
}

/** What a CLI's own tests use: the stand-in (once started) and the run spec of a scenario. */
export interface Running<A extends StandInServer> {
  api(): A;
  spec(scenario: string, more?: Partial<RunSpec>): RunSpec;
}

const usageSince = (before: Usage, after: Usage): Usage => ({
  input: after.input - before.input,
  output: after.output - before.output,
  cacheRead: after.cacheRead - before.cacheRead,
  cacheWrite: after.cacheWrite - before.cacheWrite,
});

/** `describe`s the CLI: the common scenarios, then the tests `own` registers. */
export function describeConformance<A extends StandInServer>(cli: Cli<A>, own?: (running: Running<A>) => void): void {
  describe(`${cli.title} ${cli.pkg.version} through ralph exec --agent ${cli.pkg.agent}`, () => {
    let binDir = '';
    let api: A;
    beforeAll(async () => {
      binDir = ensureInstalled(cli.pkg);
      api = await cli.startStandIn();
    });
    afterAll(async () => {
      await api?.close();
    });
    const spec = (scenario: string, more: Partial<RunSpec> = {}): RunSpec => ({ agent: cli.pkg.agent, scenario, binDir, ...cli.pointAt(api), ...more });
    const served = (scenario: string) => api.served.filter((s) => s.scenario === scenario);
    const conversations = (o: RunOutcome) => o.logs.map((l) => cli.conversation.id.exec(l)?.[1]);
    /** Runs the scenario, records its streams, and expects the outcome. */
    const run = async (scenario: string, outcome: string, more?: Partial<RunSpec>) => {
      const o = await runScenario(spec(scenario, more));
      recordStreams(cli.fixtures, scenario, o);
      expect(o.result?.outcome, `${describeFailure(o)}\npaths: ${api.paths.join(' ')}`).toBe(outcome);
      return o;
    };

    it('completes: the summary written by a tool call, an observation recorded, tokens counted', async () => {
      const before = { ...api.reported };
      const o = await run('complete', 'complete');
      expect(o.result.iterations).toBe(1);
      expect(o.findings.map((f) => f.title)).toEqual(['Greeting file added']);
      expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
      const turns = served('complete').length;
      expect(turns).toBe(3);
      expect(o.result.tokens).toEqual(usageSince(before, api.reported));
      // The run says which command and stream format it chose.
      const agentEvent = o.events.find((e) => e.type === 'agent');
      expect(agentEvent?.streamFormat).toBe(cli.streamFormat);
      expect(agentEvent?.command[0]).toBe(cli.pkg.bin);
      cli.alsoComplete?.(o, turns);
    });

    it("ignores ###PLAN_COMPLETE### in a command's output", async () => {
      const o = await run('toolsignal', 'exhausted', { args: ['--max-iterations', '1'] });
      expect(o.result.signals).toEqual([]);
      expect(o.logs[0]).toContain('###PLAN_COMPLETE###'); // it was there, in the command's output
    });

    it(`starts a fresh ${cli.conversation.word} after a bailout`, async () => {
      const o = await run('bailout', 'complete');
      expect(o.result.iterations).toBe(2);
      expect(o.result.bailouts).toBe(1);
      const starts = o.events.filter((e) => e.type === 'iteration-start');
      expect(starts.map((e) => e.fresh)).toEqual([true, true]);
      const ids = conversations(o);
      expect(ids[0]).toBeDefined();
      expect(ids[1]).not.toBe(ids[0]);
    });

    it(`resumes the same ${cli.conversation.word} after an iteration without a decision, with a short prompt; tokens are not counted twice`, async () => {
      const before = { ...api.reported };
      const o = await run('resume', 'complete');
      expect(o.result.iterations).toBe(2);
      const starts = o.events.filter((e) => e.type === 'iteration-start');
      expect(starts.map((e) => [e.fresh, e.prompt])).toEqual([
        [true, 'full'],
        [false, 'continue'],
      ]);
      const ids = conversations(o);
      expect(ids[0]).toBeDefined();
      expect(ids[1]).toBe(ids[0]);
      // The resumed request carries the first iteration's words: the CLI really continued.
      expect(served('resume').find((s) => s.turn === 1)?.body).toContain('Not done yet, thinking.');
      // Codex and Qwen Code report the conversation's running total after a resume; ralph counts each token once.
      expect(o.result.tokens).toEqual(usageSince(before, api.reported));
    });

    const limit = cli.limit;
    if (limit !== undefined) {
      it('waits out a usage limit its API refuses with, then completes; the refused attempt is no iteration', async () => {
        api.limit = { times: 1, status: limit.status, body: limit.body };
        const served = api.limitsServed;
        try {
          const o = await run('complete', 'complete', { timeoutMs: 280_000 });
          expect(api.limitsServed - served).toBe(1);
          expect(o.result.iterations).toBe(1);
          const waits = o.events.filter((e) => e.type === 'wait_start');
          expect(waits).toEqual([expect.objectContaining({ iteration: 1, kind: limit.kind })]);
          expect(o.events.filter((e) => e.type === 'iteration-start')).toHaveLength(2);
        } finally {
          api.limit = undefined;
        }
      });
    }

    own?.({ api: () => api, spec });
  });
}
