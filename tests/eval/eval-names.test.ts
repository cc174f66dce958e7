import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { tempDir, toolgauge } from '../helpers/cli.ts';

// `toolgauge eval` with two evals of one name, as real processes: the run is refused in one line naming the name and
// the files that define it (exit 2) before any case runs and before any folder is made.

/** An eval file whose describeEval calls define one eval per name in `names`; each case's call appends to `calls`. */
function evalFile(dir: string, file: string, names: string[], calls: string): string {
  const path = join(dir, `${file}.eval.ts`);
  const options = `{
  data: () => [{ id: '1', input: '1' }, { id: '2', input: '2' }],
  task: async (input) => {
    appendFileSync(${JSON.stringify(calls)}, ${JSON.stringify(`${file} `)} + input + '\\n');
    return { output: input, answer: input, toolCalls: [], messages: [], usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, turns: 1 };
  },
  scorers: [scorers.custom('answered', ({ output }) => output.answer.length > 0)],
}`;
  writeFileSync(
    path,
    [
      `import { appendFileSync } from 'node:fs';`,
      `import { describeEval, scorers } from ${JSON.stringify(fromRoot('harness', 'api', 'index.ts'))};`,
      ...names.map((n) => `describeEval(${JSON.stringify(n)}, ${options});`),
    ].join('\n'),
  );
  return path;
}

const eval_ = (dir: string, ...args: string[]) =>
  toolgauge(['eval', ...args, '--model', 'sim:oracle'], {}, 180_000, dir);

/** toolgauge's lines on stderr that refuse the eval `name` as defined twice (Vitest's own report of the error aside). */
function refusals(r: { stdout: string; stderr: string }, name: string): string[] {
  expect(r.stdout).not.toMatch(/^toolgauge: .*is defined/m);
  return r.stderr.split('\n').filter((l) => l.startsWith('toolgauge:') && l.includes(`'${name}' is defined`));
}

describe('toolgauge eval: two evals of one name', () => {
  it('in two eval files: one line naming the eval and both files, exit 2, no case run, no folder made', async () => {
    const dir = tempDir('eval-names-files');
    const calls = join(dir, 'calls.txt');
    evalFile(dir, 'first', ['same'], calls);
    evalFile(dir, 'second', ['same'], calls);
    const out = join(dir, 'out');
    const r = await eval_(dir, 'first.eval.ts', 'second.eval.ts', '--out-dir', out);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const said = refusals(r, 'same');
    expect(said, r.stdout + r.stderr).toHaveLength(1);
    expect(said[0]).toMatch(/first\.eval\.ts.*second\.eval\.ts|second\.eval\.ts.*first\.eval\.ts/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(calls)).toBe(false);
    expect(existsSync(out)).toBe(false);
  });

  it('twice in one file: one line naming the eval and the file, exit 2, no case run, no folder made', async () => {
    const dir = tempDir('eval-names-one-file');
    const calls = join(dir, 'calls.txt');
    evalFile(dir, 'twice', ['other', 'same', 'same'], calls);
    const r = await eval_(dir, 'twice.eval.ts', '--out-dir', join(dir, 'out'));
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const said = refusals(r, 'same');
    expect(said, r.stdout + r.stderr).toHaveLength(1);
    expect(said[0]).toContain('twice.eval.ts');
    expect(existsSync(calls)).toBe(false);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('one eval in --parts 2 is one eval, and evals of other names in two files run: each case once', async () => {
    const dir = tempDir('eval-names-parts');
    const calls = join(dir, 'calls.txt');
    evalFile(dir, 'first', ['alpha'], calls);
    evalFile(dir, 'second', ['beta', 'gamma'], calls);
    const out = join(dir, 'out');
    const r = await eval_(dir, 'first.eval.ts', 'second.eval.ts', '--parts', '2', '--out-dir', out);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['alpha', 'beta', 'gamma']);
    // Each case of each eval ran once (beta and gamma are second.eval.ts's); learning the names ran none.
    expect(readFileSync(calls, 'utf8').trim().split('\n').sort()).toEqual([
      'first 1',
      'first 2',
      'second 1',
      'second 1',
      'second 2',
      'second 2',
    ]);
  });
});
