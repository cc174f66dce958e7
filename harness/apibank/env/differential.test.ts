// Differential check against the reference runner itself (fixtures/apibank/score_oracle.py): a small sample here —
// the first four tasks of each level with every generated call — so `npm test` stays quick; bench/apibank-env.ts runs
// every task (thousands of calls per level). Needs TOOLGAUGE_APIBANK_REF (a MAS-PromptBench checkout) and the data.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDatabases, loadFrozenToolSearcher, type ScoreOptions } from './index.ts';
import {
  compareCases,
  emptyTally,
  EXTERNAL_APIS,
  letterEmbeddingFallback,
  ReferenceScorer,
} from './reference-oracle.ts';
import { APIBANK_DATA, buildTasks, hasApibankData } from './testkit.ts';
import { callCases } from './variants.ts';

let ref: ReferenceScorer | undefined;
let skip = hasApibankData() ? undefined : `no API-Bank data at ${APIBANK_DATA}`;

beforeAll(async () => {
  if (skip) return;
  const started = await ReferenceScorer.start();
  if ('skip' in started) skip = started.skip;
  else ref = started;
  if (skip) console.warn(`[apibank env] differential tests against the reference skipped: ${skip}`);
}, 60_000);
afterAll(async () => ref?.close());

describe('environment vs reference runner on generated calls (sample)', () => {
  for (const level of ['1', '2', '3'] as const)
    it(`level ${level}: same verdict, stage, error text and result wherever the reference decides`, async (ctx) => {
      if (!ref) return ctx.skip(skip);
      const opts: ScoreOptions = {
        toolSearcher: 'official',
        databases: loadDatabases(join(APIBANK_DATA, 'api-bank/init_database')),
        frozen: {
          '2': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level2.json'), '2'),
          '3': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level3.json'), '3'),
        },
      };
      const recorded = Object.keys(opts.frozen![level === '3' ? '3' : '2']!.outputsByKeyword).slice(0, 3);
      const tasks = buildTasks(level)
        .filter((t) => !EXTERNAL_APIS.has(t.ground_truth.api_name))
        .filter(
          (t, i, all) =>
            i < 4 ||
            (t.ground_truth.api_name === 'ToolSearcher' &&
              all.findIndex((x) => x.ground_truth.api_name === 'ToolSearcher') === i),
        );
      const t = emptyTally();
      for (const task of tasks) await compareCases(ref, task, callCases(task, recorded), opts, t);
      expect(t.disagreements).toEqual([]);
      expect(t.agree).toBe(t.bothDetermined);
      expect(t.bothDetermined).toBeGreaterThan(40);
      expect(t.oursUndetermined).toBe(t.refUndetermined);
    }, 60_000);
});

describe('ToolSearcher cache misses through the embedding branch (same stand-in model on both sides)', () => {
  it('level 2 and 3 ToolSearcher tasks: same verdicts and results', async (ctx) => {
    if (skip || !ref) return ctx.skip(skip);
    const letters = await ReferenceScorer.start(undefined, 'letters');
    if ('skip' in letters) return ctx.skip(letters.skip);
    try {
      const opts: ScoreOptions = {
        toolSearcher: 'official',
        embeddingFallback: letterEmbeddingFallback,
        databases: loadDatabases(join(APIBANK_DATA, 'api-bank/init_database')),
        frozen: {
          '2': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level2.json'), '2'),
          '3': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level3.json'), '3'),
        },
      };
      const t = emptyTally();
      for (const level of ['2', '3'] as const) {
        const recorded = Object.keys(opts.frozen![level]!.outputsByKeyword).slice(0, 3);
        const tasks = buildTasks(level)
          .filter((x) => x.ground_truth.api_name === 'ToolSearcher')
          .slice(0, 3);
        for (const task of tasks) await compareCases(letters, task, callCases(task, recorded), opts, t);
      }
      expect(t.disagreements).toEqual([]);
      expect(t.oursUndetermined + t.refUndetermined).toBe(0);
      expect(t.bothDetermined).toBeGreaterThan(40);
    } finally {
      await letters.close();
    }
  }, 60_000);
});
