import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDirLock, releaseDirLock } from '../kit/lock.ts';
import { run as runCommand } from './command.ts';
import { SUITE_COMMAND_RUNNER } from '../cli/suite-command.ts';

const run = (argv: string[]) => runCommand(argv, SUITE_COMMAND_RUNNER);

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('toolgauge toolhop rescore', () => {
  it('refuses a directory a run holds (it rewrites results.jsonl and the journal), naming the run; nothing is rewritten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-rescore-lock-'));
    dirs.push(dir);
    const preds = '{"id":1,"idx":1,"question":"q","gold_answer":"a","predicted_answer":"a"}\n';
    writeFileSync(join(dir, 'predictions.jsonl'), preds);
    writeFileSync(join(dir, 'results.jsonl'), 'as the run wrote it\n');
    expect(acquireDirLock(dir, 'run-in-progress')).toBe(true);
    try {
      await expect(run(['rescore', '--out-dir', dir])).rejects.toThrow(/in use by run run-in-progress/);
    } finally {
      releaseDirLock(dir, 'run-in-progress');
    }
    expect(readFileSync(join(dir, 'results.jsonl'), 'utf8')).toBe('as the run wrote it\n');
    expect(readFileSync(join(dir, 'predictions.jsonl'), 'utf8')).toBe(preds);
  });
});
