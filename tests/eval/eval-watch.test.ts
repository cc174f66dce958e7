import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { runHistory } from '../../harness/kit/run-history.ts';
import { inProcess, readJson, tempDir, workerBundle } from '../helpers/cli.ts';

// `toolgauge eval --watch` in this process, from the eval's own folder: the eval's cases come from a module it
// imports, and editing that module must start a second run (Vitest's module graph, not a watch on the eval file).

/** The cases module: a case passes when its id starts with 'p'. */
function writeCases(dir: string, ids: string[]): void {
  writeFileSync(join(dir, 'cases.ts'), `export const ids: string[] = ${JSON.stringify(ids)};\n`);
}

function writeEval(dir: string): string {
  const file = join(dir, 'watched.eval.ts');
  writeFileSync(
    file,
    `import { describeEval, scorers } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
import { ids } from './cases.ts';
const out = (answer: string) => ({ output: answer, answer, toolCalls: [], messages: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 1 });
describeEval('watched', {
  data: () => ids.map((id) => ({ id, input: id })),
  task: async (input: string) => out(input.startsWith('p') ? 'yes' : 'no'),
  scorers: [scorers.custom('said_yes', ({ output }) => output.answer === 'yes')],
});
`,
  );
  return file;
}

/** main() with stdout and stderr captured, the working directory `cwd`, and a wait for a line of the output. */
function capturedMain(args: string[], cwd: string) {
  let text = '';
  const waits: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const write = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture = ((c: string | Uint8Array) => {
    text += String(c);
    for (const w of waits.splice(0))
      if (w.pattern.test(text)) w.resolve();
      else waits.push(w);
    return true;
  }) as typeof process.stdout.write;
  const home = process.cwd();
  process.chdir(cwd);
  process.stdout.write = capture;
  process.stderr.write = capture;
  const restore = () => {
    process.stdout.write = write.stdout;
    process.stderr.write = write.stderr;
    process.chdir(home);
  };
  const done = (async () => {
    const { main } = await import('../../harness/cli/main.ts');
    // As the launcher (and inProcess) does: the run names the CLI bundle for this process, so the eval's API loads
    // from it rather than ~200 sources through Vite.
    const bundle = await workerBundle();
    if (bundle)
      Object.assign(process.env, { TOOLGAUGE_WORKER_BUNDLE: bundle, TOOLGAUGE_WORKER_BUNDLE_PID: String(process.pid) });
    try {
      return await main(args);
    } finally {
      delete process.env.TOOLGAUGE_WORKER_BUNDLE;
      delete process.env.TOOLGAUGE_WORKER_BUNDLE_PID;
      restore();
    }
  })();
  return {
    done,
    output: () => text,
    /** Resolves once the output matches; a hang fails after a generous limit (no timing is asserted). */
    waitFor: (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(text)) return resolve();
        const timer = setTimeout(() => reject(new Error(`never printed ${pattern}:\n${text}`)), 120_000);
        waits.push({ pattern, resolve: () => (clearTimeout(timer), resolve()) });
      }),
  };
}

describe('toolgauge eval --watch', () => {
  it('re-runs when a module the eval imports changes, keeps both runs, and stops on SIGINT with nothing locked', async () => {
    const dir = tempDir('eval-watch');
    writeCases(dir, ['p1', 'f1']);
    writeEval(dir);
    const out = join(dir, 'out');
    const run = capturedMain(['eval', 'watched.eval.ts', '--watch', '--model', 'sim:oracle', '--out-dir', out], dir);
    try {
      await run.waitFor(/run 1 kept in /);
      expect(readJson<{ counts: { runs: number } }>(join(out, 'summary.json')).counts.runs).toBe(2);
      writeCases(dir, ['p1', 'f1', 'p2']); // one passing case more
      await run.waitFor(/run 2 kept in /);
    } finally {
      process.emit('SIGINT');
    }
    const code = await run.done;
    expect(code, run.output()).toBe(130);
    // the latest run is where a one-off run writes; each run is kept under runs/, newest first in the history
    expect(readJson<{ counts: { runs: number } }>(join(out, 'summary.json')).counts.runs).toBe(3);
    const history = runHistory(out);
    expect(history.map((h) => [h.model, h.problem])).toEqual([
      ['sim:oracle', null],
      ['sim:oracle', null],
    ]);
    expect(history[0]!.passRate).toBeCloseTo(2 / 3, 5);
    expect(history[1]!.passRate).toBe(1 / 2);
    expect(history[0]!.name > history[1]!.name).toBe(true);
    for (const h of history) expect(readdirSync(h.dir)).toEqual(expect.arrayContaining(['summary.json', 'report.md']));
    // nothing locked: the lock and the run's claim files are gone, and a one-off run may use the folder at once
    expect(readdirSync(out).filter((n) => n.includes('lock'))).toEqual([]);
    expect(existsSync(join(out, 'runs', history[0]!.name, 'runs'))).toBe(false);
    const again = await inProcess(
      ['eval', join(dir, 'watched.eval.ts'), '--model', 'sim:oracle', '--out-dir', out, '--resume'],
      {},
    );
    expect(again.code, again.stderr).toBe(0);
  });

  it('two eval files: each run defines their evals anew (no duplicate), and an edit that names both alike is refused', async () => {
    const dir = tempDir('eval-watch-names');
    writeCases(dir, ['p1']);
    writeEval(dir);
    const second = (name: string) =>
      writeFileSync(
        join(dir, 'second.eval.ts'),
        `import { describeEval, scorers } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};
describeEval(${JSON.stringify(name)}, {
  data: () => [{ id: 'p9', input: 'p9' }],
  task: async (input: string) => ({ output: input, answer: input, toolCalls: [], messages: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 1 }),
  scorers: [scorers.custom('answered', ({ output }) => output.answer.length > 0)],
});
`,
      );
    second('second');
    const out = join(dir, 'out');
    const run = capturedMain(
      ['eval', 'watched.eval.ts', 'second.eval.ts', '--watch', '--model', 'sim:oracle', '--out-dir', out],
      dir,
    );
    try {
      await run.waitFor(/run 1 kept in [^\n]*second/);
      // A new run of the files defines 'watched' and 'second' again: not a second eval of either name.
      writeCases(dir, ['p1', 'p2']);
      await run.waitFor(/run 2 kept in [^\n]*watched/);
      expect(run.output()).not.toMatch(/is defined/);
      second('watched');
      // Run 3 (the edited file alone) is refused: its names are checked against the file it did not re-run.
      await run.waitFor(
        /toolgauge: .*the eval 'watched' is defined in (second|watched)\.eval\.ts and in (watched|second)\.eval\.ts/,
      );
    } finally {
      process.emit('SIGINT');
    }
    expect(await run.done, run.output()).toBe(130);
    // The refused run kept nothing: each eval's history holds runs 1 and 2 only.
    expect(runHistory(join(out, 'watched'))).toHaveLength(2);
    expect(runHistory(join(out, 'second'))).toHaveLength(1);
  });

  it('--watch with a flag it cannot take is a one-line usage error', async () => {
    const dir = tempDir('eval-watch-usage');
    writeCases(dir, ['p1']);
    const file = writeEval(dir);
    for (const flag of [['--json'], ['--resume'], ['--shard', '1/2']]) {
      const r = await inProcess(['eval', file, '--watch', ...flag], {});
      expect(r.code, flag.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([`toolgauge eval: --watch cannot be combined with ${flag[0]}`]);
    }
  });
});
