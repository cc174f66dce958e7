// Team topologies on the simulator (real HTTP, in process): the reference's team sizes in model calls, the team's
// answer scored like a single reply, and the team fields in results.jsonl.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLines, tempDir } from '../../tests/helpers/cli.ts';
import { runSuite } from '../launch/run-suite.ts';
import { apibankSuite } from './suite.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from './testkit.ts';

// Model calls per task: 4 voters; 4 peers × 2 rounds; toolgauge's centralized (delegation, 3 workers, synthesis);
// 4 pipeline stages.
const CALLS = { independent: 4, decentralized: 8, centralized: 5, sequential: 4 } as const;

describe.skipIf(!HAS_SHARED_APIBANK)(
  `API-Bank teams on the simulator${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    it("every topology answers the oracle's call with its size in model calls; a wrong name stays wrong", async () => {
      for (const [topology, calls] of Object.entries(CALLS)) {
        const run = await runSuite(apibankSuite, {
          TOOLGAUGE_MODEL: 'sim:oracle',
          TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK,
          TOOLGAUGE_APIBANK_LIMIT: '1',
          TOOLGAUGE_APIBANK_TOPOLOGY: topology,
          TOOLGAUGE_OUT_DIR: tempDir(`apibank-${topology}`),
        });
        expect(
          run.metas.map((m) => [m.correct, m.n_llm_calls, m.error]),
          topology,
        ).toEqual(run.metas.map(() => [true, calls, null]));
        const results = readLines<{ n_agents: number; style: string; winner?: string }>(
          join(run.outDir, 'results.jsonl'),
        );
        expect(results.map((r) => r.style)).toEqual(results.map(() => `${topology}_langgraph`));
      }
      const wrong = await runSuite(apibankSuite, {
        TOOLGAUGE_MODEL: 'sim:wrong_name',
        TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK,
        TOOLGAUGE_APIBANK_LIMIT: '1',
        TOOLGAUGE_APIBANK_TOPOLOGY: 'independent',
        TOOLGAUGE_OUT_DIR: tempDir('apibank-ind-wrong'),
      });
      expect(wrong.metas.map((m) => [m.correct, m.stage])).toEqual(wrong.metas.map(() => [false, 'api_name']));
    }, 60_000);
  },
);
