import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { validSummary } from '../../harness/report/summary.ts';
import { cleanEnv, inProcess, readJson, readLines, tempDir } from '../helpers/cli.ts';

// Vitest used the way people type it, and the kit's guarantees around it. Each test stands alone.

const VITEST = fromRoot('node_modules', 'vitest', 'vitest.mjs');

/** Plain `vitest …` on the repository's config, as a user runs it (no toolgauge CLI in between). */
async function vitest(args: string[], env: Record<string, string>, cwd: string) {
  const r = await execa('node', [VITEST, ...args, '--root', fromRoot()], {
    env: cleanEnv(env),
    extendEnv: false,
    reject: false,
    cwd,
    timeout: 240_000,
  });
  return { code: r.exitCode ?? -1, out: `${r.stdout}\n${r.stderr}` };
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('Vitest as people type it', () => {
  it('`vitest run suites/toolhop --reporter=junit` without TOOLHOP_ALLOW_DATASET_EXEC: every test names the variable, toolgauge still reports and gates', async () => {
    const dir = tempDir('plain');
    const out = join(dir, 'out');
    const r = await vitest(
      ['run', '--project', 'eval', 'suites/toolhop', '--reporter=junit'],
      { TOOLHOP_LIMIT: '2', TOOLGAUGE_OUT_DIR: out, TOOLGAUGE_GATE: 'accuracy>=0.5' },
      dir,
    );
    expect(r.code, r.out).toBe(1);
    expect(r.out).toContain('<testsuites');
    expect(r.out).toMatch(/TOOLHOP_ALLOW_DATASET_EXEC=1/);
    expect(r.out).not.toMatch(/ENAMETOOLONG/);
    // toolgauge's reporter ran next to the user's: summary, report and the gate's verdict.
    const s = validSummary(readJson(join(out, 'summary.json')));
    expect(s.counts).toMatchObject({ instances: 2, errors: 2 });
    expect(s.gate?.passed).toBe(false);
    // Transcripts travel inline in annotations; nothing is copied into an attachments folder.
    expect(existsSync(join(dir, '.vitest-attachments'))).toBe(false);
    expect(existsSync(join(out, '.vitest-attachments'))).toBe(false);
  });

  it('`vitest list suites/toolhop` lists the tests and leaves an earlier run untouched', async () => {
    const dir = tempDir('list');
    const out = join(dir, 'out');
    mkdirSync(out);
    writeFileSync(join(out, 'results.jsonl'), '{"id":"1","correct":true}\n');
    writeFileSync(join(out, 'summary.json'), '{"earlier":"run"}\n');
    const r = await vitest(
      ['list', '--project', 'eval', 'suites/toolhop'],
      { TOOLHOP_LIMIT: '3', TOOLGAUGE_OUT_DIR: out },
      dir,
    );
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/toolhop › 1 › hops=3/);
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8')).toBe('{"id":"1","correct":true}\n');
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe('{"earlier":"run"}\n');
  });

  it('a -t re-run of one instance keeps the finished run in the report; --out-dir keeps files it does not write', async () => {
    const out = tempDir('rerun');
    writeFileSync(join(out, 'keep.txt'), 'mine');
    mkdirSync(join(out, 'notes'));
    const exec = { TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLGAUGE_SANDBOX: 'python' };
    const first = await runSuite(toolhopSuite, { ...exec, TOOLHOP_LIMIT: '3', TOOLGAUGE_OUT_DIR: out });
    expect(first.finalized.harnessErrors).toBe(0);
    // Through main() in this process (-t in a process of its own: resume.test.ts's plain Vitest run).
    const again = await inProcess(['toolhop', '--limit', '3', '--out-dir', out, '-t', 'toolhop › 2 '], exec);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const s = validSummary(readJson(join(out, 'summary.json')));
    expect(s.metrics.accuracy).toMatchObject({ n: 3 });
    // One line per instance in every record file, the re-run one replaced, in dataset order.
    expect(readLines<{ id: number | string }>(join(out, 'results.jsonl')).map((x) => String(x.id))).toEqual([
      '1',
      '2',
      '11',
    ]);
    expect(readLines(join(out, 'predictions.jsonl'))).toHaveLength(3);
    expect(readFileSync(join(out, 'keep.txt'), 'utf8')).toBe('mine');
    expect(existsSync(join(out, 'notes'))).toBe(true);
  });
});

describe('failing fast, saying why', () => {
  it('bad gates, a missing --data file, a closed port and an unrunnable setting stop before any instance, exit 2, one line', async () => {
    const out = tempDir('fast');
    const port = await closedPort();
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['toolhop', '--gate', 'accuracy=>0.5'], {}, /--gate: .*not METRIC/],
      [
        ['toolhop', '--gate', 'accurracy>=0.5'],
        {},
        /names metric 'accurracy', which this suite does not report \(it reports: accuracy/,
      ],
      [['toolhop', '--data', join(out, 'missing.json')], {}, /--data '.*missing\.json' does not exist/],
      [
        ['maze', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm'],
        {},
        new RegExp(`endpoint http://127\\.0\\.0\\.1:${port}/v1 is not usable: Connection error \\(.*ECONNREFUSED`),
      ],
      [['toolhop', '--agents', '5'], {}, /team settings need a team topology/],
      [['toolhop'], { TOOLHOP_TOPOLOGY: 'mesh' }, /TOOLHOP_TOPOLOGY must be one of/],
    ];
    for (const [args, env, message] of cases) {
      // In process: the same main() as the command, minus a process start per case (they all stop before Vitest).
      const r = await inProcess([...args, '--out-dir', join(out, 'run')], env);
      expect(r.code, `${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    expect(existsSync(join(out, 'run'))).toBe(false);
    // An output directory under a regular file cannot be written, even by root: stopped before the first request.
    writeFileSync(join(out, 'blocker'), 'not a directory\n');
    const r = await inProcess(['maze', '--out-dir', join(out, 'blocker', 'run')], {});
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^toolgauge maze: cannot write the output directory \S*blocker\/run: \S*blocker is not a directory$/m,
    );
  });

  it('probe --only one case passes and exits 0 (empty part files are not harness errors)', async () => {
    const out = tempDir('only');
    // In this process: the run's part files are the subject (the command's process: tests/probe/cli.test.ts).
    const r = await inProcess(['probe', '--only', 'c1_weather_dev_000', '--out-dir', out], {});
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(validSummary(readJson(join(out, 'summary.json'))).counts).toMatchObject({ instances: 1, errors: 0 });
  });
});
