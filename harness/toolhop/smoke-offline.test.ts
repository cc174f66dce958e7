import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { inProcess, tempDir } from '../../tests/helpers/cli.ts';

/** A loopback port nothing listens on: a listener is opened and closed, so a connection to it is refused. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('toolhop --smoke-dataset --data hf with no network and a cold cache', () => {
  it('is one line naming the flag and the download that failed, exit 2, no stack', async () => {
    const r = await inProcess(['toolhop', '--smoke-dataset', '--data', 'hf', '--model', 'sim:oracle'], {
      HF_HOME: tempDir('hf-cold'),
      HF_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /^toolgauge toolhop: --data hf: could not download bytedance-research\/ToolHop\/data\/ToolHop\.json@main from http:\/\/127\.0\.0\.1:\d+: .*Pass --data FILE\.\n$/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });
});
