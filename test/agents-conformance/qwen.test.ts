// The real Qwen Code (pinned, from npm) driven by `ralph exec --agent qwen` against a local
// stand-in of an OpenAI-compatible Chat Completions API. See docs/agents.md, "The conformance suite".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ChatStandIn } from './chat-stand-in.js';
import { describeConformance } from './conformance.js';
import { describeFailure, runScenario } from './harness.js';
import { PINNED } from './install.js';

const pkg = PINNED.qwen!;

describeConformance({
  pkg,
  title: 'Qwen Code',
  fixtures: `qwen-code-${pkg.version}`,
  startStandIn: () => ChatStandIn.start(['run_shell_command']),
  pointAt: (api) => ({
    env: { OPENAI_BASE_URL: api.url, OPENAI_API_KEY: 'stand-in-key', OPENAI_MODEL: 'stand-in-model', QWEN_CODE_TRUST_WORKSPACE: 'true' },
    // The OpenAI-compatible auth, chosen once in the user's settings as `qwen` would ask interactively.
    homeFiles: { '.qwen/settings.json': JSON.stringify({ security: { auth: { selectedType: 'openai' } } }) },
  }),
  streamFormat: 'qwen-json',
  conversation: { word: 'session', id: /"session_id":"([^"]+)"/ },
}, ({ api, spec }) => {
  it("sandboxed (--sandbox on, docs/sandbox.md): completes the plan against the stand-in, its writes in the tree and its own state folder only", async () => {
    // The user chose Qwen Code's own sandbox (a Docker or Podman container): inside ralph's the preset
    // turns it off (else the run fails: the container cannot start, docs/sandbox.md).
    const settings = { security: { auth: { selectedType: 'openai' } }, tools: { sandbox: true } };
    const o = await runScenario(spec('complete', { args: ['--sandbox', 'on'], homeFiles: { '.qwen/settings.json': JSON.stringify(settings) } }));
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.sandbox.mode).toBe('on');
    expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
    // The stand-in's host came from OPENAI_BASE_URL, as a gateway's would.
    expect(o.events.find((e) => e.type === 'sandbox')).toMatchObject({ mode: 'on', hosts: expect.arrayContaining([new URL(api().url).host]) });
    expect(existsSync(join(o.home, '.qwen'))).toBe(true);
    // Nothing it needed was refused. Its usage statistics (Aliyun RUM, *.rum.aliyuncs.com) are
    // not its API: refused and reported, unless the user's settings turn them off.
    const refused = o.result.sandbox.refusals.filter((r: { what: string; target: string }) => !(r.what === 'network' && /\.rum\.aliyuncs\.com:/.test(r.target)));
    expect(refused, JSON.stringify(o.result.sandbox)).toEqual([]);
  });
});
