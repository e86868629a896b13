// `ralph serve`'s usage errors through the built CLI: they say what is wrong and exit 64.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';

describe('ralph serve usage errors', () => {
  it('a port in use, a bad port, a bad queue URL', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = await runRalph(['serve', '--port', String(port)]);
      expect(r.code).toBe(64);
      expect(r.stderr).toBe(`ralph: port ${port} on 127.0.0.1 is in use\nChoose another with --port N (or --port 0 for any free one).\n`);
      expect(r.stdout).toBe('');
    } finally {
      busy.close();
    }
    expect((await runRalph(['serve', '--port', '65536'])).code).toBe(64);
    const q = await runRalph(['serve', '--port', '0', '--queue', 'http://x']);
    expect(q.code).toBe(64);
    expect(q.stderr).toContain('--queue must be a redis:// or rediss:// URL');
  });
});
