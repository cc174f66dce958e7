import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcess, tempDir, toolgauge } from '../helpers/cli.ts';
import { twoViewRuns } from '../helpers/view-runs.ts';

// What a user gets wrong on the commands around the runs — an output path under a file, a port in use or out of
// range — is one line on stderr naming the path or port: never a stack. The refusals made before anything runs go
// through the CLI's main() in this process (the same code as the command, minus a process start each); a port in use
// is the real command's process, whose exit code and stderr are the subject there (a failed listen must not kill it).

const lines = (s: string) => s.trim().split('\n');

describe('a path or port the user named that cannot be used is one line', () => {
  let runs: { a: string; b: string; file: string };
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    const root = tempDir('one-line');
    runs = { a: join(root, 'a'), b: join(root, 'b'), file: join(root, 'a-file') };
    await twoViewRuns(runs.a, runs.b);
    writeFileSync(runs.file, '');
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('report --compare --out-dir under a file: exit 2 before anything is read, naming the file', async () => {
    for (const out of [runs.file, join(runs.file, 'sub')]) {
      const r = await inProcess(['report', runs.a, runs.b, '--compare', '--out-dir', out], {});
      expect(r.code, r.stderr).toBe(2);
      expect(lines(r.stderr), r.stderr).toEqual([
        `toolgauge report --compare: cannot write the output directory ${out}: ${runs.file} is not a directory`,
      ]);
    }
  });

  it('view --export into a folder that is a file: exit 2, naming the file', async () => {
    const r = await inProcess(['view', runs.a, '--export', join(runs.file, 'page.html')], {});
    expect(r.code, r.stderr).toBe(2);
    expect(lines(r.stderr), r.stderr).toEqual([
      `toolgauge view: --export: cannot write the output directory ${runs.file}: ${runs.file} is not a directory`,
    ]);
  });

  it('toolhop --out, bfcl rescore and apibank rescore under a file: exit 2 before any row runs or is read', async () => {
    const root = tempDir('one-line-out');
    const runDir = join(root, 'run');
    const th = await inProcess(
      ['toolhop', '--limit', '1', '--model', 'sim:oracle', '--out-dir', runDir, '--out', join(runs.file, 'p.jsonl')],
      { TOOLHOP_ALLOW_DATASET_EXEC: '1' },
    );
    expect(th.code, th.stderr).toBe(2);
    expect(lines(th.stderr), th.stderr).toEqual([
      `toolgauge toolhop: --out: cannot write the output directory ${runs.file}: ${runs.file} is not a directory`,
    ]);
    expect(existsSync(join(runDir, 'instances.jsonl'))).toBe(false);
    const bfcl = await inProcess(['bfcl', 'rescore', '--result-dir', root, '--out-dir', runs.file], {});
    const apibank = await inProcess(['apibank', 'rescore', root, '--data', root, '--out-dir', runs.file], {});
    for (const [r, who] of [
      [bfcl, 'bfcl rescore'],
      [apibank, 'apibank rescore'],
    ] as const) {
      expect(r.code, r.stderr).toBe(2);
      expect(lines(r.stderr), r.stderr).toEqual([
        `toolgauge ${who}: cannot write the output directory ${runs.file}: ${runs.file} is not a directory`,
      ]);
    }
  });

  it('toolhop --data naming a folder: exit 2 before the run opens, not a harness error from each test file', async () => {
    const r = await inProcess(['toolhop', '--data', runs.a, '--model', 'sim:oracle'], {
      TOOLHOP_ALLOW_DATASET_EXEC: '1',
    });
    expect(r.code, r.stderr).toBe(2);
    expect(lines(r.stderr), r.stderr).toEqual([`toolgauge toolhop: --data '${runs.a}' is a folder; give a file`]);
  });

  it('sim and view on a port in use: exit 1 with the address; sim --port out of range: exit 2', async () => {
    for (const args of [['sim'], ['view', runs.a]]) {
      const r = await toolgauge([...args, '--port', String(busyPort)], {}, 30_000);
      expect(r.code, r.stderr).toBe(1);
      expect(lines(r.stderr), r.stderr).toEqual([
        `toolgauge ${args[0]}: listen EADDRINUSE: address already in use 127.0.0.1:${busyPort}`,
      ]);
    }
    const r = await inProcess(['sim', '--port', '65536'], {});
    expect(r.code, r.stderr).toBe(2);
    expect(lines(r.stderr)).toEqual([`toolgauge sim: --port must be <= 65535 (got '65536')`]);
  });
});
