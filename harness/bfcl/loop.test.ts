// BFCL's inference loop driven by the simulator's responder (in process): the result it produces is what BFCL
// would have written, and scoring it gives the oracle's pass — on the toy API with python3 only, and on BFCL's
// own multi-turn classes and data (miss_func holdout turns included) when ../shared/data is present.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { loadCategory, type BfclCase } from './data.ts';
import { PythonBfclExecutor } from './executor.ts';
import { runBfclCase, type AskModel } from './loop.ts';
import { createBfclResponder } from './responder.ts';
import { checkCase } from './score.ts';
import { FIXTURE_DATA, hasReference, hasSharedData, SHARED_CLASSES, SHARED_DATA } from './testkit.ts';

const TOY = fileURLToPath(new URL('../../fixtures/bfcl/classes', import.meta.url));

function simulator(c: BfclCase, mode: 'fc' | 'prompt', model: string): AskModel {
  const responder = createBfclResponder({ mode, underscores: true, lookup: (id) => (id === c.id ? c : undefined) });
  const spec = parsePolicySpec(model);
  return async (messages, tools) =>
    responder.chat!(
      spec,
      { model, messages, tools },
      { id: `bfcl:${c.id}`, instance: `bfcl:${c.id}`, agent: 'a', trial: 0 },
    );
}

async function runAndScore(c: BfclCase, mode: 'fc' | 'prompt', model: string, exec: PythonBfclExecutor) {
  const result = await runBfclCase(c, simulator(c, mode, model), { mode, executor: exec });
  return checkCase(c, result, {
    format: mode === 'fc' ? 'fc' : 'pythonic',
    executor: exec,
    underscoreToDot: mode === 'fc',
  });
}

const toy = new PythonBfclExecutor({ sourceDir: TOY });
const real = hasSharedData() && hasReference() ? new PythonBfclExecutor({ sourceDir: SHARED_CLASSES }) : undefined;
afterAll(async () => {
  await toy.dispose();
  await real?.dispose();
});

describe('BFCL inference loop on the simulator', () => {
  it('single-turn and multi-turn fixtures: the oracle passes in FC and prompt mode; a wrong argument fails', async () => {
    for (const category of [
      'simple_python',
      'parallel',
      'irrelevance',
      'live_relevance',
      'multi_turn_base',
      'multi_turn_miss_param',
    ] as const) {
      for (const c of loadCategory(FIXTURE_DATA, category)) {
        for (const mode of ['fc', 'prompt'] as const) {
          const v = await runAndScore(c, mode, 'sim:oracle', toy);
          expect(v.valid, `${c.id} ${mode}: ${v.error_type}`).toBe(true);
        }
      }
    }
    const mt = loadCategory(FIXTURE_DATA, 'multi_turn_base')[0]!;
    expect((await runAndScore(mt, 'fc', 'sim:wrong', toy)).error_type).toBe('multi_turn:instance_state_mismatch');
  });

  it.skipIf(!real)(
    `BFCL's classes: miss_func (held-out functions come back on their turn) and long_context${real ? '' : ' — SKIPPED: needs ../shared/data/bfcl'}`,
    async () => {
      for (const category of ['multi_turn_miss_func', 'multi_turn_long_context'] as const) {
        for (const c of loadCategory(SHARED_DATA, category).slice(0, 2)) {
          for (const mode of ['fc', 'prompt'] as const) {
            const v = await runAndScore(c, mode, 'sim:oracle', real!);
            expect(v.valid, `${c.id} ${mode}: ${v.error_type}`).toBe(true);
          }
        }
      }
    },
  );
});
