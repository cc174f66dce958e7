import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OptimizeLog, readLog } from './log.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

const line = (key: string, error: string | null = null) => ({
  key,
  candidate: 'c0',
  sha: 'abc',
  row: key,
  purpose: 'validation',
  score: 1,
  error,
  tokens: { prompt: 1, completion: 1, total: 2 },
  budgeted: true,
  feedback: {},
  at: 'now',
});

function fresh(config = { seed: 1, budget: 5 }) {
  const path = join(tempDir('optlog'), 'log.jsonl');
  return { path, log: OptimizeLog.open(path, config, false, { durable: false }) };
}

describe('the optimizer log', () => {
  it('keeps rollouts, reflections and decisions across a reopen; decisions are written once', () => {
    const { path, log } = fresh();
    log.appendRollout(line('r:c0:1'));
    log.appendReflection({
      key: 'reflect:1',
      prompt_sha: 'p',
      prompt: 'P',
      answer: 'A',
      tokens: { prompt: 1, completion: 1, total: 2 },
      at: 'now',
    });
    log.event('cand:c0', 'candidate', { id: 'c0' });
    log.event('cand:c0', 'candidate', { id: 'c0', again: true });
    log.close();
    const again = OptimizeLog.open(path, { seed: 1, budget: 5 }, true);
    expect(again.resumed).toBe(true);
    expect(again.rollout('r:c0:1')?.score).toBe(1);
    expect(again.reflection('reflect:1')?.answer).toBe('A');
    expect(again.eventLines()).toHaveLength(1);
    again.event('cand:c0', 'candidate', { id: 'c0' });
    expect(() => again.appendRollout(line('r:c0:1'))).toThrow(/already logged/);
    again.close();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(4);
  });

  it('a rollout that ended in a harness error is kept for the record but not reused: a resumed run tries it again', () => {
    const { path, log } = fresh();
    log.appendRollout(line('r:c0:2', 'endpoint failed after 6 attempts'));
    log.close();
    const again = OptimizeLog.open(path, { seed: 1, budget: 5 }, true);
    expect(again.rollout('r:c0:2')).toBeUndefined();
    again.appendRollout(line('r:c0:2'));
    expect(again.rollout('r:c0:2')?.error).toBeNull();
    again.close();
  });

  it('cuts a torn last line (a kill mid-write) so the next line starts clean', () => {
    const { path, log } = fresh();
    log.appendRollout(line('r:c0:1'));
    log.close();
    appendFileSync(path, JSON.stringify({ type: 'rollout', ...line('r:c0:9') }).slice(0, 40));
    const again = OptimizeLog.open(path, { seed: 1, budget: 5 }, true);
    expect(again.rollout('r:c0:9')).toBeUndefined();
    again.appendRollout(line('r:c0:3'));
    again.close();
    expect(readLog(path).map((l) => (l as { key?: string }).key)).toEqual([undefined, 'r:c0:1', 'r:c0:3']);
  });

  it('refuses a log from other settings, a foreign file, and an edited line, naming the file and line', () => {
    const { path, log } = fresh();
    log.close();
    expect(() => OptimizeLog.open(path, { seed: 2, budget: 5 }, true)).toThrow(
      /--resume: .*log\.jsonl was written with seed=1, this run has 2/,
    );
    expect(() => OptimizeLog.open(path, { seed: 1, budget: 50, concurrency: 9 }, true).close()).not.toThrow();
    const other = join(tempDir('optlog'), 'log.jsonl');
    writeFileSync(other, '{"type":"rollout"}\n');
    expect(() => OptimizeLog.open(other, {}, true)).toThrow(/log\.jsonl: row line 1/);
    appendFileSync(path, '{"type":"reflection","key":1}\n');
    expect(() => OptimizeLog.open(path, { seed: 1, budget: 5 }, true)).toThrow(/row line 2: field key/);
  });
});
