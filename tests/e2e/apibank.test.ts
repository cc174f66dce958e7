// API-Bank end to end on the real data (../shared/data/apibank; skipped visibly when absent): the CLI over real
// HTTP to the simulator on the reference's 100 frozen eval ids, and in-process runs of the planted failures. The
// expected figures come from the data — the gold replay file the reference itself produced — never from the scorer.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { rescoreFolder } from '../../harness/apibank/rescore.ts';
import { scoreOptionsFor } from '../../harness/apibank/scoring.ts';
import { apibankSuite } from '../../harness/apibank/suite.ts';
import { ApibankData, DATA_LAYOUT } from '../../harness/apibank/tasks.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from '../../harness/apibank/testkit.ts';
import { readJson, readLines, tempDir, toolgauge, type CliResult } from '../helpers/cli.ts';

// The first 34 frozen ids (interleaved L1, L2, L3) in npm test; all 100 with TOOLGAUGE_APIBANK_E2E_FULL=1.
const FULL = process.env.TOOLGAUGE_APIBANK_E2E_FULL === '1';
const N = FULL ? 100 : 34;

type Summary = {
  suite: string;
  notice: string | null;
  counts: Record<string, number>;
  metrics: Record<string, { value: number; n: number }>;
  breakdowns: { level: Record<string, { accuracy: { value: number; n: number } }> };
};

describe.skipIf(!HAS_SHARED_APIBANK)(
  `toolgauge apibank on the simulator${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    let out: string;
    let r: CliResult;
    let ids: string[];
    let goldCorrect: Record<string, { correct: boolean }>;
    beforeAll(async () => {
      out = tempDir('apibank-oracle');
      ids = (
        JSON.parse(readFileSync(join(SHARED_APIBANK, DATA_LAYOUT.evalIds), 'utf8')) as { ids: string[] }
      ).ids.slice(0, N);
      goldCorrect = JSON.parse(readFileSync(join(SHARED_APIBANK, DATA_LAYOUT.goldReplay), 'utf8')) as Record<
        string,
        { correct: boolean }
      >;
      r = await toolgauge([
        'apibank',
        '--level',
        'all',
        '--model',
        'sim:oracle',
        '--data',
        SHARED_APIBANK,
        '--out-dir',
        out,
        ...(FULL ? [] : ['--limit', String(N)]),
      ]);
    }, 180_000);

    it(`sim:oracle on ${N} of the 100 frozen eval ids: every task whose gold replay the reference accepts is correct`, () => {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const s = readJson<Summary>(join(out, 'summary.json'));
      expect(s.suite).toBe('apibank');
      expect(s.notice).toMatch(/SIMULATOR/);
      const expected = ids.filter((id) => goldCorrect[id]?.correct === true).length;
      expect(s.counts).toMatchObject({ instances: N, correct: expected, errors: 0, undetermined: 0 });
      expect(Object.keys(s.breakdowns.level).sort()).toEqual(['L1', 'L2', 'L3']);
      expect(r.stdout).toMatch(/toolgauge · API-Bank · sim:oracle · level all/);
    });

    it("writes the reference's files: predictions.jsonl and results.jsonl in the frozen order, one trace per id", () => {
      const preds = readLines<{ id: string; idx: string; predicted_answer: string; model_name_or_path: string }>(
        join(out, 'predictions.jsonl'),
      );
      expect(preds.map((p) => p.id)).toEqual(ids);
      expect(Object.keys(preds[0]!).sort()).toEqual([
        'id',
        'idx',
        'model_name_or_path',
        'predicted_answer',
        'question',
      ]);
      const results = readLines<{
        id: string;
        correct: boolean;
        answer_correct: number;
        stage: string;
        gold_api_call: string;
        predicted_answer: string;
      }>(join(out, 'results.jsonl'));
      expect(results.map((x) => x.id)).toEqual(ids);
      for (const x of results) expect(x.predicted_answer).toBe(x.gold_api_call);
      expect(existsSync(join(out, 'traces', `${ids[0]!.replace(/\//g, '_').replace(/:/g, '_')}.json`))).toBe(true);
    });

    it('rescoring the written folder gives the same verdicts', () => {
      const again = rescoreFolder(out, new ApibankData(SHARED_APIBANK), () =>
        scoreOptionsFor(SHARED_APIBANK, 'official'),
      );
      expect(again.summary).toMatchObject({ n: N, agreement_with_folder: { compared: N, same: N } });
    });

    it('sim:wrong_name scores 0 (every reply stops at the API-name check); sim:no_call stops at parsing', async () => {
      for (const [model, stage] of [
        ['sim:wrong_name', 'api_name'],
        ['sim:no_call', 'parse'],
      ] as const) {
        const run = await runSuite(apibankSuite, {
          TOOLGAUGE_MODEL: model,
          TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK,
          TOOLGAUGE_APIBANK_LIMIT: '12',
          TOOLGAUGE_OUT_DIR: tempDir('apibank-wrong'),
        });
        expect(run.metas.length).toBe(12);
        expect(run.metas.map((m) => [m.correct, m.stage, m.error])).toEqual(run.metas.map(() => [false, stage, null]));
      }
    }, 60_000);

    it('a ToolSearcher search the frozen cache does not hold is undetermined, unless an embedding command decides it', async () => {
      const toolsearcher = ids
        .filter((id) => (goldCorrect[id] as { gold_api_name?: string }).gold_api_name === 'ToolSearcher')
        .slice(0, 2);
      const env = {
        TOOLGAUGE_MODEL: 'sim:wrong_arg',
        TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK,
        TOOLGAUGE_APIBANK_ONLY: toolsearcher.join(','),
      };
      const without = await runSuite(apibankSuite, { ...env, TOOLGAUGE_OUT_DIR: tempDir('apibank-ts') });
      expect(without.metas.map((m) => m.correct)).toEqual([null, null]);
      expect(without.finalized.summary.counts).toMatchObject({ undetermined: 2, correct: 0, wrong: 0 });
      const withCmd = await runSuite(apibankSuite, {
        ...env,
        TOOLGAUGE_APIBANK_TOOLSEARCHER_EMBEDDINGS: `node ${fromRoot('fixtures', 'apibank', 'first-item-embeddings.mjs')}`,
        TOOLGAUGE_OUT_DIR: tempDir('apibank-ts-emb'),
      });
      expect(withCmd.metas.map((m) => typeof m.correct)).toEqual(['boolean', 'boolean']);
      // Keyword scoring never leaves a task undetermined: changed keywords are simply wrong.
      const keyword = await runSuite(apibankSuite, {
        ...env,
        TOOLGAUGE_APIBANK_TOOLSEARCHER_SCORER: 'keyword',
        TOOLGAUGE_OUT_DIR: tempDir('apibank-ts-kw'),
      });
      expect(keyword.metas.map((m) => m.correct)).toEqual([false, false]);
    }, 60_000);
  },
);
