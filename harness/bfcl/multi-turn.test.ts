// Multi-turn end to end: the simulated responder answers turn by turn, BFCL's loop is replayed into a result, the
// CPython executor runs the calls with state kept across turns, and the checker compares state and responses
// with the ground-truth run. On the self-written toy API (fixtures/bfcl/classes) this needs only python3; on
// BFCL's own classes and data (../shared/data/bfcl) every multi-turn category runs, and a sample is compared
// with BFCL's own multi_turn_checker.
import { afterAll, describe, expect, it } from 'vitest';
import { MULTI_TURN_CATEGORIES } from './categories.ts';
import { beyondMultiTurn } from './beyond.ts';
import { loadCategory } from './data.ts';
import { ExecutorError, PythonBfclExecutor } from './executor.ts';
import { pyJsonDumps } from '../core/pyliteral/pyjson.ts';
import { createBfclResponder, simulatedResult, turnAndStep, type Behaviour } from './responder.ts';
import { checkMultiTurn } from './score.ts';
import { BfclOracle, FIXTURE_DATA, hasReference, hasSharedData, SHARED_CLASSES, SHARED_DATA } from './testkit.ts';
import { fileURLToPath } from 'node:url';
import { parsePolicySpec } from '../sim/policy-spec.ts';

const TOY = fileURLToPath(new URL('../../fixtures/bfcl/classes', import.meta.url));
const HOSTILE = fileURLToPath(new URL('../../fixtures/bfcl/hostile-classes', import.meta.url));
const HEAVY = process.env.TOOLGAUGE_BFCL_HEAVY === '1';

const toyExec = new PythonBfclExecutor({ sourceDir: TOY });
afterAll(async () => toyExec.dispose());

describe('multi-turn on the toy ticket API (python3 only)', () => {
  const base = loadCategory(FIXTURE_DATA, 'multi_turn_base')[0]!;
  const missParam = loadCategory(FIXTURE_DATA, 'multi_turn_miss_param')[0]!;

  it('the oracle passes in FC and prompt mode (positional ground truth is sent as keywords)', async () => {
    for (const format of ['fc', 'pythonic', 'hermes'] as const) {
      const v = await checkMultiTurn(base, simulatedResult(base, format), { format, executor: toyExec });
      expect(v.valid, `${format}: ${v.error_type}`).toBe(true);
      // BFCL writes FC calls joined with "," and prompt-mode calls with ", ".
      const sep = format === 'pythonic' ? ', ' : ',';
      expect(v.decodedTurns).toEqual([
        [[`create_ticket(title='Printer jam'${sep}priority=2)`]],
        [['close_ticket(ticket_id=1)']],
      ]);
    }
  });

  it('a wrong argument is a state mismatch at the turn it happens, with the differing attribute', async () => {
    const v = await checkMultiTurn(base, simulatedResult(base, 'fc', 'decision_failure'), {
      format: 'fc',
      executor: toyExec,
    });
    expect(v.valid).toBe(false);
    expect(v.error_type).toBe('multi_turn:instance_state_mismatch');
    expect(v.multiTurn?.turn).toBe(0);
    expect(Object.keys(v.multiTurn!.differences!.TicketAPI!)).toContain('tickets');
  });

  it('an undecodable call leaves the turn empty: empty_turn_model_response', async () => {
    const v = await checkMultiTurn(base, simulatedResult(base, 'pythonic', 'format_failure'), {
      format: 'pythonic',
      executor: toyExec,
    });
    expect(v.error_type).toBe('multi_turn:empty_turn_model_response');
  });

  it('same state but a missing ground-truth response: execution_response_mismatch', async () => {
    // get_ticket changes nothing, so the state matches; the ground truth's close_ticket result is missing.
    const result = pyJsonLoads(
      `[[[{"create_ticket": "{\\"title\\": \\"Printer jam\\", \\"priority\\": 2}"}], "ok"], [[{"close_ticket": "{\\"ticket_id\\": 1}"}], "ok"]]`,
    );
    expect((await checkMultiTurn(base, result, { format: 'fc', executor: toyExec })).valid).toBe(true);
    const noClose = pyJsonLoads(
      `[[[{"create_ticket": "{\\"title\\": \\"Printer jam\\", \\"priority\\": 2}"}]], [[{"get_ticket": "{\\"ticket_id\\": 1}"}]]]`,
    );
    const v = await checkMultiTurn(base, noClose, { format: 'fc', executor: toyExec });
    expect(v.error_type).toBe('multi_turn:instance_state_mismatch');
  });

  it('turn counts must match (force-terminated) and the result must be a list', async () => {
    expect((await checkMultiTurn(base, pyJsonLoads('[[]]'), { format: 'fc', executor: toyExec })).error_type).toBe(
      'multi_turn:force_terminated',
    );
    expect((await checkMultiTurn(base, pyJsonLoads('"text"'), { format: 'fc', executor: toyExec })).error_type).toBe(
      'multi_turn:inference_error',
    );
  });

  it('BFCL does not check turns whose ground truth is empty; toolgauge reports calls made there', async () => {
    const ok = await checkMultiTurn(missParam, simulatedResult(missParam, 'fc'), { format: 'fc', executor: toyExec });
    expect(ok.valid).toBe(true);
    expect(beyondMultiTurn(missParam, ok).deviation).toBeUndefined();
    // On the turn that should ask "which ticket?", the model guesses and calls get_ticket: BFCL still passes.
    const guessed = pyJsonLoads(
      `[[[{"create_ticket": "{\\"title\\": \\"Printer jam\\"}"}], "ok"], [[{"get_ticket": "{\\"ticket_id\\": 1}"}], "ok"], [[{"close_ticket": "{\\"ticket_id\\": 1}"}], "ok"]]`,
    );
    const v = await checkMultiTurn(missParam, guessed, { format: 'fc', executor: toyExec });
    expect(v.valid).toBe(true);
    const b = beyondMultiTurn(missParam, v);
    expect(b.callsOnAbstentionTurns).toEqual([{ turn: 1, calls: ['get_ticket(ticket_id=1)'] }]);
    expect(b.deviation?.class).toBe('abstention_turn_not_checked');
  });

  it('the responder reads turn and step from the conversation, prompt-mode tool results included', () => {
    expect(turnAndStep([{ role: 'user', content: 'a' }])).toEqual({ turn: 0, step: 0 });
    expect(
      turnAndStep([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: '[f()]' },
        { role: 'user', content: "[{'role': 'tool', 'name': 'f()', 'content': 'x'}]" },
      ]),
    ).toEqual({ turn: 0, step: 1 });
    expect(
      turnAndStep([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'x' },
        { role: 'user', content: 'b' },
      ]),
    ).toEqual({ turn: 1, step: 0 });
    const responder = createBfclResponder({
      mode: 'fc',
      underscores: true,
      lookup: (id) => (id === base.id ? base : undefined),
    });
    const ctx = { id: `bfcl:${base.id}`, instance: `bfcl:${base.id}`, agent: 'a', trial: 0 };
    const first = responder.chat!(
      parsePolicySpec('sim:oracle'),
      { model: 'sim:oracle', messages: [{ role: 'user', content: 'open' }] },
      ctx,
    ) as { tool_calls?: Array<{ function: { name: string; arguments: string } }> };
    expect(first.tool_calls?.map((t) => [t.function.name, t.function.arguments])).toEqual([
      ['create_ticket', '{"title": "Printer jam", "priority": 2}'],
    ]);
    const closing = responder.chat!(
      parsePolicySpec('sim:oracle'),
      {
        model: 'sim:oracle',
        messages: [
          { role: 'user', content: 'open' },
          { role: 'assistant', content: null },
          { role: 'tool', content: '{}' },
        ],
      },
      ctx,
    ) as { content: string | null; tool_calls?: unknown[] };
    expect(closing.tool_calls).toBeUndefined();
    expect(closing.content).toBeTruthy();
  });

  it('the executor survives bad calls: refused names, unknown functions, and a runaway call (killed, reported)', async () => {
    const functions = ['create_ticket', 'close_ticket', 'get_ticket'];
    const h = await toyExec.start({
      classes: ['TicketAPI'],
      initialConfigJson: '{"TicketAPI": {"tickets": [], "next_id": 7}}',
      longContext: false,
      label: 'm_x',
      functions,
    });
    expect(await toyExec.call(h, ['exit()', 'nope(a=1)', "create_ticket(title='t')"])).toEqual([
      'Error during execution: Function call exit is not allowed.',
      "Error during execution: name 'nope' is not defined",
      '{"id": 7, "title": "t", "priority": 1, "status": "open"}',
    ]);
    const slow = new PythonBfclExecutor({ sourceDir: HOSTILE, timeoutMs: 1500 });
    try {
      const h2 = await slow.start({
        classes: ['TicketAPI'],
        initialConfigJson: '{}',
        longContext: false,
        label: 'm_y',
        functions: ['spin', 'stash'],
      });
      await expect(slow.call(h2, ['spin()'])).rejects.toThrow(ExecutorError);
      // A fresh worker takes the next request.
      const h3 = await slow.start({
        classes: ['TicketAPI'],
        initialConfigJson: '{}',
        longContext: false,
        label: 'm_z',
        functions: ['spin', 'stash'],
      });
      expect(await slow.call(h3, ["stash(value='a')"])).toEqual(["['a']"]);
    } finally {
      await slow.dispose();
    }
  });
});

import { pyJsonLoads } from '../core/pyliteral/pyjson.ts';

const oracleStart = hasSharedData() && hasReference() ? await BfclOracle.start() : { skip: 'no ../shared/data/bfcl' };
const oracle = 'skip' in oracleStart ? undefined : oracleStart;
const bfclExec = oracle ? new PythonBfclExecutor({ sourceDir: SHARED_CLASSES }) : undefined;
afterAll(async () => {
  await bfclExec?.dispose();
  await oracle?.close();
});

describe.skipIf(!oracle)(
  `multi-turn on BFCL's own classes, against BFCL's multi_turn_checker${oracle ? '' : ' — SKIPPED: needs ../shared/data/bfcl'}`,
  () => {
    const N = HEAVY ? 200 : 2;
    for (const category of HEAVY ? MULTI_TURN_CATEGORIES : (['multi_turn_base', 'multi_turn_miss_func'] as const)) {
      it(`${category}: oracle passes state-based checking; faults fail the same way BFCL fails them (${N} cases)`, {
        timeout: HEAVY ? 900_000 : 60_000,
      }, async () => {
        const cases = loadCategory(SHARED_DATA, category).slice(0, N);
        const behaviours: Behaviour[] = ['oracle', 'decision_failure', 'format_failure'];
        for (const [k, c] of cases.entries()) {
          for (const behaviour of behaviours) {
            const format = (['fc', 'pythonic', 'hermes'] as const)[k % 3]!;
            const result = simulatedResult(c, format, behaviour);
            const ours = await checkMultiTurn(c, result, { format, executor: bfclExec });
            if (behaviour === 'oracle') expect(ours.valid, `${c.id} ${format}: ${ours.error_type}`).toBe(true);
            const ref = await oracle!.ask<{ valid: boolean; error_type: string }>({
              op: 'multi_turn',
              category,
              entry: c.entry.raw,
              answer: c.answerRaw,
              result: pyJsonDumps(result),
              fmt: format,
            });
            expect(`${ours.valid}:${ours.error_type}`, `${c.id} ${format} ${behaviour}`).toBe(
              `${ref.valid}:${ref.error_type}`,
            );
          }
        }
      });
    }
  },
);
