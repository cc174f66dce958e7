// The reference runner itself (MAS-PromptBench's langgraph_apibank.py, from a checkout named by
// TOOLGAUGE_APIBANK_REF, outside this repository) pointed at toolgauge's simulator, which places its header-less
// requests by content; then toolgauge's own run with the same policy. The two results.jsonl must agree field for
// field, and toolgauge's verdict must equal the reference's wherever toolgauge's is determined. Python stand-ins
// for openai/requests/sentence_transformers (fixtures/apibank/ref-shims; no embeddings) make it run offline.
// Skipped visibly without TOOLGAUGE_APIBANK_REF or the data. TOOLGAUGE_APIBANK_REF_LIMIT (default 100) ids.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { pythonCommand } from '../../harness/core/pyliteral/python-oracle.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { apibankSimResponder } from '../../harness/apibank/sim-responder.ts';
import { apibankSuite } from '../../harness/apibank/suite.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from '../../harness/apibank/testkit.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { readLines, tempDir } from '../helpers/cli.ts';

const REF = process.env.TOOLGAUGE_APIBANK_REF;
const LIMIT = Number(process.env.TOOLGAUGE_APIBANK_REF_LIMIT || 100);
const skip = !HAS_SHARED_APIBANK
  ? 'needs ../shared/data/apibank'
  : !REF
    ? 'set TOOLGAUGE_APIBANK_REF to a MAS-PromptBench checkout'
    : !existsSync(join(REF, 'topologies/single/apibank/langgraph_apibank.py'))
      ? `no reference runner under ${REF}`
      : '';
if (skip) console.warn(`[apibank reference runner] skipped: ${skip}`);

const FIELDS = [
  'id',
  'idx',
  'level',
  'file',
  'sample_id',
  'question',
  'gold_api_call',
  'gold_api_name',
  'style',
  'predicted_answer',
  'predicted_api_name',
  'predicted_params',
  'stage',
  'error',
  'turns',
  'tool_calls',
  'n_agents',
];
type Row = Record<string, unknown> & { correct: boolean | null };

describe.skipIf(!!skip)(
  `the reference runner on toolgauge's simulator agrees with toolgauge${skip ? ` — SKIPPED: ${skip}` : ''}`,
  () => {
    let sim: SimServer;
    beforeAll(async () => {
      sim = await startSimServer({ responders: { apibank: apibankSimResponder(() => SHARED_APIBANK) } });
    });
    afterAll(() => sim?.close());

    for (const policy of ['oracle', 'wrong_name', 'wrong_arg', 'no_call']) {
      it(`sim:${policy}: same results.jsonl fields, same verdicts where toolgauge's is determined`, async () => {
        const refOut = tempDir(`apibank-ref-${policy}`);
        const r = await execa(
          pythonCommand(),
          ['-m', 'topologies.single.apibank.langgraph_apibank', '--limit', String(LIMIT), '--out-dir', refOut],
          {
            cwd: REF,
            reject: false,
            env: {
              PYTHONPATH: fromRoot('fixtures', 'apibank', 'ref-shims'),
              APIBANK_ROOT: join(REF!, 'benchmarks/apibank/apibank_upstream/api-bank'),
              VLLM_BASE_URL: sim.url,
              MODEL_ID: `sim:${policy}`,
            },
          },
        );
        expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
        const run = await runSuite(apibankSuite, {
          TOOLGAUGE_MODEL: `sim:${policy}`,
          TOOLGAUGE_APIBANK_DATA: SHARED_APIBANK,
          TOOLGAUGE_APIBANK_LIMIT: String(LIMIT),
          TOOLGAUGE_OUT_DIR: tempDir(`apibank-tg-${policy}`),
        });
        const ref = readLines<Row>(join(refOut, 'results.jsonl'));
        const ours = readLines<Row>(join(run.outDir, 'results.jsonl'));
        expect(ours.length).toBe(LIMIT);
        expect(ref.length).toBe(LIMIT);
        const diffs: string[] = [];
        const differing = new Set<unknown>();
        ref.forEach((a, i) => {
          const before = diffs.length;
          const b = ours[i]!;
          if (JSON.stringify(Object.keys(a).sort()) !== JSON.stringify(Object.keys(b).sort()))
            diffs.push(`${a.id}: keys differ`);
          for (const k of FIELDS)
            if (b.correct !== null && JSON.stringify(a[k]) !== JSON.stringify(b[k]))
              diffs.push(`${a.id}: ${k} ${JSON.stringify(a[k])} != ${JSON.stringify(b[k])}`);
          if (b.correct !== null && a.correct !== b.correct)
            diffs.push(`${a.id}: correct ${a.correct} != ${b.correct}`);
          if (diffs.length > before) differing.add(a.id);
        });
        const determined = ours.filter((b) => b.correct !== null).length;
        console.info(
          `[apibank reference runner] sim:${policy}: ${determined - differing.size}/${determined} determined rows agree (${LIMIT - determined} undetermined)`,
        );
        expect(diffs.slice(0, 5)).toEqual([]);
      }, 180_000);
    }
  },
);
