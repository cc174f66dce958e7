import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { cleanEnv, countLines, inProcess, readJson, readLines, tempDir } from '../helpers/cli.ts';

// The CPython sandbox: this test is about the run's files, not the interpreter.
const EXEC = { TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLGAUGE_SANDBOX: 'python' };

// The ways a run ends early by a kill: the CLI SIGKILLed mid-run and its forked test worker SIGKILLed alone, each then
// --resumed, are in tests/e2e/eval-worker.test.ts (the same runs show where the rows run).

/** Run `fn` while the process group `pid` leads is stopped (SIGSTOP: alive, its lock held), then let it go on. */
async function whileStopped<T>(pid: number, fn: () => Promise<T>): Promise<T> {
  process.kill(-pid, 'SIGSTOP');
  try {
    return await fn();
  } finally {
    process.kill(-pid, 'SIGCONT');
  }
}

const BASE_RUN = { ...EXEC, TOOLGAUGE_MODEL: 'sim:wrong', TOOLHOP_LIMIT: '2' };
/**
 * A finished two-row run of BASE_RUN, made once per file; each test works on its own copy. The kit's in-process run
 * (the same sessions, journal, lock and finalize as the command, without a Vitest instance): the tests resume it.
 */
let baseRun: Promise<string> | undefined;
async function copyOfRun(prefix: string): Promise<string> {
  baseRun ??= (async () => {
    const out = tempDir('base');
    const r = await runSuite(toolhopSuite, { ...BASE_RUN, TOOLGAUGE_OUT_DIR: out });
    expect(r.finalized.harnessErrors, JSON.stringify(r.finalized.summary.errors)).toBe(0);
    return out;
  })();
  const copy = tempDir(prefix);
  cpSync(await baseRun, copy, { recursive: true });
  return copy;
}

/** A command that is refused before any run starts: in this process (the CLI's own code, without a process start). */
const refusedHere = (args: string[]) => inProcess(args, EXEC);
const oneLine = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('toolgauge')).length === 1;

describe('a resume checks what it continues', () => {
  it('another model is refused, naming the field and both values, on --resume and on a -t re-run; nothing changes', async () => {
    const out = await copyOfRun('other-model');
    const before = readFileSync(join(out, 'results.jsonl'), 'utf8');
    for (const extra of [[], ['-t', 'toolhop']]) {
      const args = [
        'toolhop',
        '--model',
        'sim:oracle',
        '--limit',
        '2',
        '--out-dir',
        out,
        ...(extra.length ? extra : ['--resume']),
      ];
      const r = await refusedHere(args);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(/model "sim:wrong", but this run has model "sim:oracle"/);
      expect(oneLine(r.stderr), r.stderr).toBe(true);
    }
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8')).toBe(before);
  });

  it('a resume of fewer rows (a smaller or forgotten --limit) keeps the other finished rows; a later resume does not run them again', async () => {
    const out = await copyOfRun('smaller-limit');
    type Line = { id: string; seal: { meta: string } };
    const seals = () =>
      Object.fromEntries(readLines<Line>(join(out, 'instances.jsonl')).map((m) => [m.id, m.seal.meta]));
    const finished = seals();
    expect(Object.keys(finished)).toHaveLength(2);
    const args = ['toolhop', '--model', 'sim:wrong', '--out-dir', out, '--resume'];
    // Through main() in this process: the subject is the directory's files after the run's end (the reporter's, as the
    // command's), not the process.
    const one = await inProcess([...args, '--limit', '1'], EXEC);
    expect(one.code, one.stderr).toBe(0);
    expect(readJson<{ counts: { instances: number } }>(join(out, 'summary.json')).counts.instances).toBe(1);
    // Both rows are still in the journal and the record files, as they were (a row run again gets another seal).
    expect(seals()).toEqual(finished);
    expect(countLines(join(out, 'results.jsonl'))).toBe(2);
    // The later resume: the kit's in-process run (the same skip of sealed rows as the command's, without a Vitest
    // instance).
    const both = await runSuite(toolhopSuite, { ...BASE_RUN, TOOLGAUGE_OUT_DIR: out, TOOLGAUGE_RESUME: '1' });
    expect(both.finalized.harnessErrors, JSON.stringify(both.finalized.summary.errors)).toBe(0);
    expect(seals()).toEqual(finished);
    expect(readJson<{ counts: { instances: number } }>(join(out, 'summary.json')).counts.instances).toBe(2);
  });

  it('a torn or foreign run.json is refused on --resume with one line naming it; the journal stays as it was', async () => {
    const out = await copyOfRun('torn-run-json');
    const journal = readFileSync(join(out, 'instances.jsonl'), 'utf8');
    const runJson = join(out, 'run.json');
    for (const [text, problem] of [
      [readFileSync(runJson, 'utf8').slice(0, 40), /run\.json: not valid JSON/],
      ['{"x": 1}\n', /run\.json: field suites: missing/],
    ] as const) {
      writeFileSync(runJson, text);
      const r = await refusedHere(['toolhop', '--model', 'sim:wrong', '--limit', '2', '--out-dir', out, '--resume']);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(problem);
      expect(r.stderr).toMatch(/run without --resume to start afresh/);
      expect(oneLine(r.stderr) && r.stderr.trim().split('\n').length === 1, r.stderr).toBe(true);
    }
    expect(readFileSync(join(out, 'instances.jsonl'), 'utf8')).toBe(journal);
  });

  it("another suite's folder is refused on --resume and on a -t re-run, naming both suites; its journal and summary stay as they were", async () => {
    const out = await copyOfRun('other-suite');
    const files = ['instances.jsonl', 'summary.json', 'run.json'].map((f) => join(out, f));
    const before = files.map((f) => readFileSync(f, 'utf8'));
    for (const extra of [['--resume'], ['-t', 'maze']]) {
      const r = await refusedHere([
        'maze',
        '--only',
        'C1_task_001',
        '--model',
        'sim:oracle',
        '--out-dir',
        out,
        ...extra,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(/holds a toolhop run \(2 finished instances in instances\.jsonl\), not a maze run/);
      expect(oneLine(r.stderr), r.stderr).toBe(true);
    }
    expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(before);
  });
  it('under plain Vitest the refused run finalizes nothing: the journal and summary stay as they were, exit 2', async () => {
    const out = await copyOfRun('plain-vitest');
    const files = ['instances.jsonl', 'summary.json', 'results.jsonl'].map((f) => join(out, f));
    const before = files.map((f) => readFileSync(f, 'utf8'));
    const v = await execa(
      'node',
      [fromRoot('node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'eval', 'suites/toolhop'],
      {
        cwd: fromRoot(),
        env: cleanEnv({
          ...EXEC,
          TOOLGAUGE_MODEL: 'sim:oracle',
          TOOLHOP_LIMIT: '2',
          TOOLGAUGE_OUT_DIR: out,
          TOOLGAUGE_RESUME: '1',
        }),
        extendEnv: false,
        reject: false,
      },
    );
    expect(v.exitCode, String(v.stdout) + String(v.stderr)).toBe(2);
    // The run end's refusal is said on stderr, as every usage error is (docs/eval.md#exit-codes).
    expect(String(v.stderr)).toMatch(
      /^toolgauge: toolhop: --resume: .* holds a run with model "sim:wrong", but this run has model "sim:oracle"/m,
    );
    expect(String(v.stdout)).not.toMatch(/holds a run with model/);
    expect(files.map((f) => readFileSync(f, 'utf8'))).toEqual(before);
  });

  it('a journal line edited to a correct, literal answer is refused by --resume and report, naming the file and line; the summary keeps the real accuracy', async () => {
    const out = await copyOfRun('edited');
    const journal = join(out, 'instances.jsonl');
    const rows = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // sim:wrong's answers are credited only when the gold is in the last tool result: a row wrong by the strict rule.
    const wrong = rows.findIndex((m) => m.rule !== 'literal');
    expect(wrong).toBeGreaterThanOrEqual(0);
    rows[wrong] = { ...rows[wrong], correct: true, rule: 'literal', pass: true, reason: null };
    writeFileSync(journal, rows.map((m) => JSON.stringify(m) + '\n').join(''));
    const strict = () =>
      readJson<{ metrics: { strict_accuracy: { value: number } } }>(join(out, 'summary.json')).metrics.strict_accuracy
        .value;
    const before = strict();
    expect(before).toBeLessThan(1);
    const r = await refusedHere(['toolhop', '--model', 'sim:wrong', '--limit', '2', '--out-dir', out, '--resume']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(`${journal} line ${wrong + 1}`);
    expect(r.stderr).toMatch(/edited/);
    expect(strict()).toBe(before);
    // `toolgauge report DIR` re-aggregates the journal: it checks it the same way.
    const rep = await refusedHere(['report', out]);
    expect(rep.code, rep.stdout + rep.stderr).toBe(2);
    expect(rep.stderr).toContain(`${journal} line ${wrong + 1}`);
    expect(strict()).toBe(before);
  });

  it('a journal line without usage is a clear error naming the line and field, and no summary is written from it', async () => {
    const out = await copyOfRun('no-usage');
    const journal = join(out, 'instances.jsonl');
    const rows = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    delete rows[1]!.usage;
    writeFileSync(journal, rows.map((m) => JSON.stringify(m) + '\n').join(''));
    const summary = readFileSync(join(out, 'summary.json'), 'utf8');
    const r = await refusedHere(['toolhop', '--model', 'sim:wrong', '--limit', '2', '--out-dir', out, '--resume']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(`${journal} line 2: field usage`);
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe(summary);
  });

  it('a rescored directory stays resumable: rescore seals the journal it writes, and holds the directory while it rewrites it', async () => {
    const out = await copyOfRun('rescored');
    const r = await inProcess(['toolhop', 'rescore', '--out-dir', out], {});
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The kit's in-process resume: the same check of the directory (fingerprint, seals, record files) as the
    // command's, which the refusals above and tests/e2e/eval-worker.test.ts's resumes make through main().
    const again = await runSuite(toolhopSuite, { ...BASE_RUN, TOOLGAUGE_OUT_DIR: out, TOOLGAUGE_RESUME: '1' });
    expect(again.finalized.harnessErrors, JSON.stringify(again.finalized.summary.errors)).toBe(0);
    expect(readJson<{ counts: { resumed: number } }>(join(out, 'summary.json')).counts.resumed).toBe(2);
    // While another run holds the directory, rescore writes nothing.
    writeFileSync(
      join(out, '.toolgauge-lock'),
      JSON.stringify({
        run_id: 'running',
        pid: process.pid,
        boot_id: null,
        pid_start: null,
        started_at: '2026-01-01T00:00:00.000Z',
      }) + '\n',
    );
    const before = readFileSync(join(out, 'results.jsonl'), 'utf8');
    const locked = await inProcess(['toolhop', 'rescore', '--out-dir', out], {});
    expect(locked.code, locked.stdout + locked.stderr).toBe(2);
    expect(locked.stderr).toMatch(/toolgauge toolhop rescore: .* is in use by run running/);
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8')).toBe(before);
  });

  it('planted links (instances.jsonl, results.jsonl, summary.json, traces/) are refused on --resume; nothing is written through them', async () => {
    for (const name of ['instances.jsonl', 'results.jsonl', 'summary.json', 'traces']) {
      const out = await copyOfRun(`link-${name.replace('.', '-')}`);
      const victim = join(tempDir('victim'), name);
      renameSync(join(out, name), victim);
      symlinkSync(victim, join(out, name));
      const before = snapshot(victim);
      // One more row than the earlier run: it runs, so it would append and write a trace.
      const r = await refusedHere(['toolhop', '--model', 'sim:wrong', '--limit', '3', '--out-dir', out, '--resume']);
      expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`${join(out, name)} is a symbolic link`);
      expect(snapshot(victim), name).toEqual(before);
    }
  });
});

describe('one run per output directory', () => {
  // One plain Vitest run in use carries three claims: an inherited run id does not join another run's lock; the
  // command's run into a directory in use is refused too, naming the first; and `-t` runs just the instance it names
  // (tests/e2e/toolhop.test.ts's other selection checks run in process). The command's own run gives its directory
  // back at its end: tests/e2e/eval-worker.test.ts (the CLI that outlived its worker).
  it('a second run into a directory in use (plain Vitest with the inherited TOOLGAUGE_RUN_ID, or the command) is refused with one line naming the first (its pid); the first finishes alone; -t runs just the instance it names', async () => {
    const out = tempDir('inherited-run-id');
    // With the defaults (--limit 5 includes row 11, third in the sample): 4 hops, 5 model calls of a second each, all
    // after the run takes the directory, for the second run to arrive.
    const plain = (m: string) =>
      execa(
        'node',
        [
          fromRoot('node_modules', 'vitest', 'vitest.mjs'),
          'run',
          '--project',
          'eval',
          'suites/toolhop',
          '-t',
          'toolhop › 11 ',
        ],
        {
          cwd: fromRoot(),
          // A run id left in the environment (a shell, a parent run): only the toolgauge launcher's own counts.
          env: cleanEnv({
            ...EXEC,
            TOOLGAUGE_RUN_ID: 'inherited',
            TOOLGAUGE_MODEL: m,
            TOOLGAUGE_OUT_DIR: out,
          }),
          extendEnv: false,
          reject: false,
          detached: true,
        },
      );
    const first = plain('sim:oracle?latency_ms=1000');
    let ended = false;
    void first.then(() => (ended = true));
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(out, '.toolgauge-lock')) && !ended && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    // The first run is stopped (alive, holding its lock) while the others try: on a loaded machine their start-up can
    // otherwise outlast its remaining calls.
    const { second, command } = await whileStopped(first.pid!, async () => ({
      second: await plain('sim:wrong'),
      command: await refusedHere(['toolhop', '--model', 'sim:wrong', '--limit', '4', '--out-dir', out]),
    }));
    const done = await first;
    expect(second.exitCode, String(second.stdout) + String(second.stderr)).toBe(2);
    // toolgauge's own line, on stderr (Vitest's report of the failed tests quotes the error there too).
    expect(String(second.stderr)).toMatch(
      new RegExp(`^toolgauge: .*in use by run (?!inherited)\\S+ \\(pid ${first.pid},`, 'm'),
    );
    expect(String(second.stdout)).not.toMatch(/^toolgauge: .*in use by run/m);
    expect(command.code, command.stdout + command.stderr).toBe(2);
    expect(command.stderr).toMatch(new RegExp(`in use by run \\S+ \\(pid ${first.pid},`));
    expect(oneLine(command.stderr), command.stderr).toBe(true);
    expect(done.exitCode, String(done.stdout)).toBe(0);
    // Unsharded, all five rows are in part 1 (four filtered out); parts 2–4 each hold one skipped placeholder.
    expect(String(done.stdout)).toMatch(/Tests\s+1 passed \| 7 skipped \(8\)/);
    const rows = readLines<{ id: number; correct: boolean }>(join(out, 'results.jsonl'));
    expect(rows.map((x) => x.id)).toEqual([11]);
    expect(rows.every((x) => x.correct)).toBe(true);
    // The first gives the directory back at its end.
    expect(existsSync(join(out, '.toolgauge-lock'))).toBe(false);
  });

  it('a lock left by a process that is gone is taken over, and released at the end', async () => {
    const out = tempDir('stale-lock');
    const gone = execa('node', ['-e', '']);
    await gone;
    writeFileSync(
      join(out, '.toolgauge-lock'),
      JSON.stringify({
        run_id: 'killed-run',
        pid: gone.pid,
        boot_id: null,
        pid_start: null,
        started_at: '2026-01-01T00:00:00.000Z',
      }) + '\n',
    );
    // The kit's in-process run takes the lock over as a run's session does (acquireDirLock, as the command's claim);
    // the command's own take-over is the --resume of a SIGKILLed CLI's directory (tests/e2e/eval-worker.test.ts), its
    // release at its end on the CLI whose forked worker was killed there, and a plain Vitest run's on the run above.
    const r = await runSuite(toolhopSuite, {
      ...EXEC,
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLHOP_LIMIT: '1',
      TOOLGAUGE_OUT_DIR: out,
    });
    expect(r.finalized.harnessErrors, JSON.stringify(r.finalized.summary.errors)).toBe(0);
    expect(countLines(join(out, 'results.jsonl'))).toBe(1);
    expect(existsSync(join(out, '.toolgauge-lock'))).toBe(false);
  });
});

/** A file's bytes, or a folder's names and bytes. */
function snapshot(p: string): Record<string, string> {
  if (!statSync(p).isDirectory()) return { '.': readFileSync(p, 'base64') };
  return Object.fromEntries(
    readdirSync(p)
      .sort()
      .map((f) => [f, readFileSync(join(p, f), 'base64')]),
  );
}
