// Multi-turn cases checked in one batch (two executor requests for all of them): each case still runs in instances
// of its own, so a case whose instance process dies is recorded as invalid (a crash) and the cases before and after
// it in the batch keep the verdicts they get when checked alone.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pyJsonLoads } from '../core/pyliteral/pyjson.ts';
import { loadCategory, type BfclCase } from './data.ts';
import { ExecutorError, PythonBfclExecutor } from './executor.ts';
import { simulatedResult } from './responder.ts';
import { checkCases, checkMultiTurn } from './score.ts';
import { FIXTURE_DATA } from './testkit.ts';

const CRASHING = fileURLToPath(new URL('../../fixtures/bfcl/crashing-classes', import.meta.url));
const exec = new PythonBfclExecutor({ sourceDir: CRASHING });
afterAll(async () => exec.dispose());

const base = loadCategory(FIXTURE_DATA, 'multi_turn_base')[0]!;
// The same case with `crash` among its documented functions (only documented functions run).
const withCrash: BfclCase = {
  ...base,
  entry: {
    ...base.entry,
    functions: [...base.entry.functions, { ...base.entry.functions[0]!, name: 'crash' }],
  },
};
/** An FC result (BFCL's `[[[{name: arguments-json}]]]`) with one step per turn. */
const fcResult = (turns: Array<Array<[string, Record<string, unknown>]>>) =>
  pyJsonLoads(JSON.stringify(turns.map((calls) => [calls.map(([name, args]) => ({ [name]: JSON.stringify(args) }))])));

describe('a batch of multi-turn cases', () => {
  it('a case that crashes its instance is invalid (crash); the others keep the verdicts they get alone', async () => {
    const oracle = simulatedResult(withCrash, 'fc');
    const wrongTicket = fcResult([
      [['create_ticket', { title: 'Printer jam', priority: 2 }]],
      [['close_ticket', { ticket_id: 9 }]],
    ]);
    const crashing = fcResult([
      [
        ['create_ticket', { title: 'Printer jam', priority: 2 }],
        ['crash', {}],
      ],
      [['close_ticket', { ticket_id: 1 }]],
    ]);
    const items = [
      { c: withCrash, result: oracle },
      { c: withCrash, result: crashing },
      { c: withCrash, result: wrongTicket },
      { c: withCrash, result: oracle },
    ];
    const verdicts = await checkCases(items, { format: 'fc', executor: exec });

    expect(verdicts.map((v) => [v.valid, v.error_type])).toEqual([
      [true, ''],
      [false, 'checker_crash:ExecutorError'],
      // Ticket 9 does not exist: the state differs from the ground truth's after turn 1.
      [false, 'multi_turn:instance_state_mismatch'],
      [true, ''],
    ]);
    expect(verdicts[1]!.crash).toMatch(/ended without an answer \(exit status 3\)/);
    // Checked alone, the others get the same verdicts (and the same executions).
    for (const k of [0, 2, 3]) {
      const alone = await checkMultiTurn(withCrash, items[k]!.result, { format: 'fc', executor: exec });
      expect([alone.valid, alone.error_type, alone.multiTurn?.execution]).toEqual([
        verdicts[k]!.valid,
        verdicts[k]!.error_type,
        verdicts[k]!.multiTurn?.execution,
      ]);
    }
    // Checked alone, the crashing case is thrown as before (one case is not a batch to keep going).
    await expect(checkMultiTurn(withCrash, crashing, { format: 'fc', executor: exec })).rejects.toThrow(
      /ended without an answer/,
    );
  });

  it('a case whose instance dies in a later turn keeps the verdict an earlier turn decided', async () => {
    // Turn 0 asks for a read the model never makes: the responses differ there, so the checker stops at turn 0
    // and the crash in turn 1 never runs; a crash with no earlier failing turn stays a crash.
    const withRead: BfclCase = {
      ...withCrash,
      groundTruth: [
        ["create_ticket(title='Printer jam', priority=2)", 'get_ticket(ticket_id=1)'],
        ['close_ticket(ticket_id=1)'],
      ],
    };
    const laterCrash = fcResult([[['create_ticket', { title: 'Printer jam', priority: 2 }]], [['crash', {}]]]);
    const [decided, crashed] = await checkCases(
      [
        { c: withRead, result: laterCrash },
        { c: withCrash, result: laterCrash },
      ],
      { format: 'fc', executor: exec },
    );
    expect([decided!.valid, decided!.error_type, decided!.crash]).toEqual([
      false,
      'multi_turn:execution_response_mismatch',
      undefined,
    ]);
    expect(decided!.multiTurn?.turn).toBe(0);
    expect([crashed!.valid, crashed!.error_type]).toEqual([false, 'checker_crash:ExecutorError']);
  });

  it("states that differ in turn 0 decide the verdict even though the model's process has already crashed in turn 1", async () => {
    // The worker runs the model's turns before the ground truth's, so the crash has happened when turn 0 is
    // compared; the checker stops at turn 0, and the crash is not the verdict.
    const wrongThenCrash = fcResult([[['create_ticket', { title: 'Wrong', priority: 3 }]], [['crash', {}]]]);
    const [v] = await checkCases([{ c: withCrash, result: wrongThenCrash }], { format: 'fc', executor: exec });
    expect([v!.valid, v!.error_type, v!.crash, v!.multiTurn?.turn]).toEqual([
      false,
      'multi_turn:instance_state_mismatch',
      undefined,
      0,
    ]);
  });
});

describe('starting instances', () => {
  const spec = (initialConfigJson: string, label: string) => ({
    classes: ['TicketAPI'],
    initialConfigJson,
    longContext: false,
    label,
    functions: ['create_ticket'],
  });

  it("a start whose initial_config is not JSON fails alone; the batch's other instances start with their configs", async () => {
    const [good, bad, float] = await exec.startMany([
      spec('{"TicketAPI": {"tickets": [], "next_id": 7}}', 'm_a'),
      spec('{"TicketAPI": ', 'm_b'),
      spec('{"TicketAPI": {"tickets": [], "next_id": 7.0}}', 'm_c'),
    ]);
    expect(bad).toBeInstanceOf(ExecutorError);
    expect(String(bad)).toMatch(/JSONDecodeError/);
    // Each instance has its own config, its numbers as Python reads them (7 and 7.0 stay apart).
    expect(await exec.call(good as string, ["create_ticket(title='t')"])).toEqual([
      '{"id": 7, "title": "t", "priority": 1, "status": "open"}',
    ]);
    expect(await exec.call(float as string, ["create_ticket(title='t')"])).toEqual([
      '{"id": 7.0, "title": "t", "priority": 1, "status": "open"}',
    ]);
    await expect(exec.start(spec('[', 'm_d'))).rejects.toThrow(/JSONDecodeError/);
    for (const h of [good, float]) await exec.close(h as string);
  });
});
