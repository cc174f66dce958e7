// The optimizer's API-Bank pool: the reference's 100 eval ids never reach train or val; splits are balanced by level.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApibankData } from '../apibank/tasks.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from '../apibank/testkit.ts';
import { apibankPool, apibankSplits } from './apibank-runner.ts';
import { tmpdir } from 'node:os';
import { readConfig } from '../core/config.ts';
import { ModelClient } from '../model/client.ts';
import { readApibankSettings } from '../apibank/settings.ts';
import { apibankSimResponder } from '../apibank/sim-responder.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { apibankRunner } from './apibank-runner.ts';
import type { Candidate } from './types.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

describe.skipIf(!HAS_SHARED_APIBANK)(
  `API-Bank optimizer splits${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    it('keeps the 100 frozen eval ids out of train and val, and draws from every level', () => {
      const data = new ApibankData(SHARED_APIBANK);
      const pool = apibankPool(data);
      expect(pool.evalIds.size).toBe(100);
      expect(pool.rows.length).toBe(445);
      const s = apibankSplits(data, { trainSize: 30, valSize: 30, seed: 0, allowEvalIds: false });
      expect([...s.train, ...s.val].filter((id) => pool.evalIds.has(id))).toEqual([]);
      expect(s.excludedEvalIds.length).toBe(100);
      for (const l of ['1', '2', '3']) expect(s.train.some((id) => id.startsWith(`level-${l}::`))).toBe(true);
    });
  },
);

describe.skipIf(!HAS_SHARED_APIBANK)(
  `API-Bank rollouts${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    let sim: SimServer;
    beforeAll(async () => {
      sim = await startSimServer({ responders: { apibank: apibankSimResponder(() => SHARED_APIBANK) } });
    });
    afterAll(() => sim?.close());

    it("a rollout is the suite's run with the candidate's prompts: 1 for the oracle's call, 0 for another API's name", async () => {
      const data = new ApibankData(SHARED_APIBANK);
      const pool = apibankPool(data);
      const id = [...pool.tasks.keys()].find((k) => !pool.evalIds.has(k))!;
      const candidate: Candidate = {
        id: 'c0',
        prompts: { solver: 'Predict the call.' },
        sha: 'x',
        parents: [],
        role: null,
        origin: 'seed',
        step: 0,
      };
      const scores: number[] = [];
      for (const model of ['sim:oracle', 'sim:wrong_name']) {
        const client = new ModelClient({ baseUrl: sim.url, model, timeoutMs: 5000, retries: 0, concurrency: 1 });
        const runner = apibankRunner({
          run: readConfig({ TOOLGAUGE_MODEL: model }),
          settings: readApibankSettings({ TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK }),
          tasks: pool.tasks,
          candidatesDir: tempDir('apibank-opt'),
          client: () => client,
          sandbox: () => {
            throw new Error('no sandbox');
          },
          outDir: tmpdir(),
        });
        const r = await runner(candidate, id);
        scores.push(r.score);
        expect(r.feedback.gold).toBe(pool.tasks.get(id)!.gold_api_call);
      }
      expect(scores).toEqual([1, 0]);
    });
  },
);
