import { describe, expect, it } from 'vitest';
import { ModelClient } from '../model/client.ts';
import { readMazeConfig } from './config.ts';
import { askLlmJudge, judgeEndpoint, judgeUsesSimulator } from './judge-client.ts';
import { runLocal } from './run-local.ts';
import { mazeSuite } from './suite.ts';
import { loadMazeTasks } from './task.ts';

describe('the LLM judge’s endpoint', () => {
  const sim = 'http://127.0.0.1:9/v1';
  it('--judge-base-url first; a sim: judge on the simulator; else the run’s --base-url; else refused', () => {
    expect(
      judgeEndpoint({ baseUrl: 'http://agent/v1' }, { judgeModel: 'j', judgeBaseUrl: 'http://judge/v1' }, sim),
    ).toBe('http://judge/v1');
    expect(judgeEndpoint({ baseUrl: 'http://agent/v1' }, { judgeModel: 'sim:judge' }, sim)).toBe(sim);
    expect(judgeEndpoint({ baseUrl: 'http://agent/v1' }, { judgeModel: 'gpt-4o' }, sim)).toBe('http://agent/v1');
    expect(() => judgeEndpoint({ baseUrl: undefined }, { judgeModel: 'gpt-4o' }, sim)).toThrow(
      /--judge-model 'gpt-4o' needs an endpoint: pass --judge-base-url/,
    );
    expect(judgeEndpoint({ baseUrl: undefined }, {}, sim)).toBeUndefined();
    expect(judgeUsesSimulator({ judgeModel: 'sim:judge' })).toBe(true);
    expect(judgeUsesSimulator({ judgeModel: 'sim:judge', judgeBaseUrl: 'http://x/v1' })).toBe(false);
    expect(judgeUsesSimulator({ judgeModel: 'gpt-4o' })).toBe(false);
  });

  it('settings: the flags’ variables, a base URL without a model refused, a simulator started for a sim judge only', () => {
    const m = readMazeConfig({ TOOLGAUGE_MAZE_JUDGE_MODEL: 'sim:judge?disagree=0.1' });
    expect(m).toMatchObject({ judgeModel: 'sim:judge?disagree=0.1' });
    expect(() => readMazeConfig({ TOOLGAUGE_MAZE_JUDGE_BASE_URL: 'http://x/v1' })).toThrow(
      /--judge-base-url needs --judge-model/,
    );
    expect(() =>
      readMazeConfig({ TOOLGAUGE_MAZE_JUDGE_MODEL: 'j', TOOLGAUGE_MAZE_JUDGE_BASE_URL: 'not a url' }),
    ).toThrow(/must be a URL/);
    const run = {} as never;
    expect(mazeSuite.needsSimulator!(run, m)).toBe(true);
    expect(mazeSuite.needsSimulator!(run, readMazeConfig({}))).toBe(false);
    expect(mazeSuite.metricNames(m)).toContain('judge_kappa');
    expect(mazeSuite.metricNames(readMazeConfig({}))).not.toContain('judge_kappa');
  });
});

describe('askLlmJudge', () => {
  it('a judge that cannot be reached is a judge error on the run, not a throw and not a label', async () => {
    const task = loadMazeTasks().find((t) => t.complexity === 'c1')!;
    const r = runLocal(task, 'P0', 'oracle');
    // Port 9 (discard) on loopback: the connection is refused at once.
    const client = new ModelClient({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'judge',
      timeoutMs: 2_000,
      retries: 0,
      concurrency: 1,
    });
    const rec = await askLlmJudge(
      client,
      { task, mode: 'P0', trace: r.trace, finalAnswer: r.finalAnswer },
      { trial: 0, seed: 0 },
    );
    expect(rec).toMatchObject({
      model: 'judge',
      label: null,
      verdict: null,
      reply: null,
      error: expect.stringMatching(/^judge request failed: /),
    });
  });
});
