// toolgauge's rescore beside BFCL's own evaluator (eval_runner.py's runner, unchanged; fixtures/bfcl/bfcl_evaluate.py
// supplies stand-ins for the packages Debian's python3 lacks) on one result folder: every case gets the same
// verdict. Needs BFCL's berkeley-function-call-leaderboard folder in TOOLGAUGE_BFCL_REF (kept outside this
// repository); skips visibly without it. The bigger comparison, with timings, is `npm run bench:bfcl-evaluator`.
import fc from 'fast-check';
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pyJsonDumps } from '../core/pyliteral/pyjson.ts';
import { outputFor } from './arbitraries.ts';
import type { BfclCategory } from './categories.ts';
import { loadCategory } from './data.ts';
import { PythonBfclExecutor } from './executor.ts';
import { rescoreResultDir } from './rescore.ts';
import { simulatedResult } from './responder.ts';
import { referencePython } from './testkit.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

const REF = process.env.TOOLGAUGE_BFCL_REF;
const present = !!REF && existsSync(join(REF, 'bfcl_eval', 'eval_checker', 'eval_runner.py'));
const DRIVER = fileURLToPath(new URL('../../fixtures/bfcl/bfcl_evaluate.py', import.meta.url));
const work = tempDir('bfcl-eval');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SINGLE: BfclCategory[] = ['simple_python', 'parallel_multiple', 'simple_java', 'irrelevance', 'live_simple'];
const groupOf = (c: string) =>
  c.startsWith('live_') ? 'live' : c.startsWith('multi_turn') ? 'multi_turn' : 'non_live';

describe.skipIf(!present)(
  `rescore beside BFCL's own evaluator${present ? '' : ' — SKIPPED: set TOOLGAUGE_BFCL_REF to a BFCL berkeley-function-call-leaderboard folder'}`,
  () => {
    it('FC results (oracle and generated outputs, JSON-text arguments) and multi-turn results: the same verdict per case', {
      timeout: 120_000,
    }, async () => {
      const data = join(REF!, 'bfcl_eval', 'data');
      const model = 'tg-fc';
      const write = (category: BfclCategory, lines: string[]) => {
        const dir = join(work, 'result', model, groupOf(category));
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `BFCL_v4_${category}_result.json`), `${lines.join('\n')}\n`);
      };
      for (const [i, category] of SINGLE.entries()) {
        const lines = loadCategory(data, category)
          .slice(0, 8)
          .map((c, k) => {
            // Arguments stored as objects are left out: BFCL's OpenAI handler, which runs here, cannot decode them.
            const gen = outputFor(c, ['fc']).filter((o) => !o.recipe.startsWith('fc/objectArgs'));
            const result =
              k % 2 ? fc.sample(gen, { seed: 7 * i + k, numRuns: 1 })[0]!.result : simulatedResult(c, 'fc');
            return `{"id": ${JSON.stringify(c.id)}, "result": ${pyJsonDumps(result)}}`;
          });
        write(category, lines);
      }
      const behaviours = ['oracle', 'decision_failure', 'format_failure'] as const;
      write(
        'multi_turn_base',
        loadCategory(data, 'multi_turn_base')
          .slice(0, 3)
          .map(
            (c, k) =>
              `{"id": ${JSON.stringify(c.id)}, "result": ${pyJsonDumps(simulatedResult(c, 'fc', behaviours[k]))}}`,
          ),
      );

      const scoreDir = join(work, 'score');
      const run = await execa(
        referencePython(),
        ['-X', 'utf8', DRIVER, REF!, join(work, 'result'), scoreDir, ...SINGLE, 'multi_turn_base'],
        { env: { BFCL_PROJECT_ROOT: work }, reject: false },
      );
      expect(run.exitCode, run.stderr).toBe(0);
      const theirs = new Map<string, string>();
      const walk = (d: string): string[] =>
        readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
      for (const file of walk(join(work, 'result')))
        for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean))
          theirs.set(JSON.parse(line).id, 'true:');
      for (const file of walk(scoreDir))
        for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(1)) {
          const r = JSON.parse(line) as {
            id: string;
            valid: boolean;
            error_type?: string;
            error?: { error_type?: string };
          };
          theirs.set(r.id, `${r.valid}:${r.error_type ?? r.error?.error_type}`);
        }

      const exec = new PythonBfclExecutor({
        sourceDir: join(REF!, 'bfcl_eval', 'eval_checker', 'multi_turn_eval', 'func_source_code'),
      });
      try {
        const report = await rescoreResultDir(join(work, 'result', model), {
          format: 'fc',
          dataDir: data,
          executor: exec,
          modelName: model,
          beyond: false,
        });
        const ours = new Map(report.records.map((r) => [r.id, `${r.valid}:${r.error_type}`]));
        expect(ours.size).toBe(SINGLE.length * 8 + 3);
        expect(ours).toEqual(theirs);
        // Both verdicts occur, so the comparison is not vacuous.
        expect(new Set([...theirs.values()].map((v) => v.split(':')[0]))).toEqual(new Set(['true', 'false']));
      } finally {
        await exec.dispose();
      }
    });
  },
);
