import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import type { EvalTool } from '../../harness/kit/eval/types.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { type Responder, type SimServer, startSimServer } from '../../harness/sim/server.ts';
import { mapCase } from '../../harness/view/cases.ts';
import { readJson, tempDir } from '../helpers/cli.ts';

// A describeEval run scored by scorers.toolCalls(), in this process, over real HTTP to the simulator: the simulated
// model below makes its own scripted calls per case (the calls a model would make, written here by hand), and the
// scorer compares them with the cases' expectedTools.
const EVAL = 'tool-calls-e2e';

type Scripted = { name: string; arguments: Record<string, number> };
/** Case id → the calls the simulated model makes, one per turn, before it answers. */
const SCRIPT: Record<string, Scripted[]> = {
  mul: [{ name: 'multiply', arguments: { a: 6, b: 7 } }],
  chain: [
    { name: 'multiply', arguments: { a: 6, b: 7 } },
    { name: 'add', arguments: { a: 42, b: 1 } },
  ],
  wrong: [{ name: 'multiply', arguments: { a: 12, b: 21 } }],
  plain: [],
};

const responder: Responder = {
  chat(_spec, body, ctx) {
    const made = body.messages.filter((m) => m.role === 'tool').length;
    const next = SCRIPT[ctx.id]?.[made];
    if (!next) return { content: `<answer>${body.messages.at(-1)?.content ?? 'none'}</answer>` };
    return {
      content: null,
      tool_calls: [
        {
          id: `call_${made}`,
          type: 'function',
          function: { name: next.name, arguments: JSON.stringify(next.arguments) },
        },
      ],
    };
  },
};

const number = { type: 'number' };
const tool = (name: string, run: (a: number, b: number) => number): EvalTool => ({
  name,
  parameters: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] },
  run: ({ a, b }) => String(run(a, b)),
});

const def = evalSuite(EVAL, {
  data: () => [
    { id: 'mul', input: 'What is 6 times 7?', expectedTools: [{ name: 'multiply', arguments: { a: 6, b: 7 } }] },
    {
      id: 'chain',
      input: 'What is 6 times 7, plus 1?',
      expectedTools: [
        { name: 'multiply', arguments: { a: 6, b: 7 } },
        { name: 'add', arguments: (x: Record<string, unknown>) => x.a === 42 && x.b === 1 },
      ],
    },
    { id: 'wrong', input: 'What is 12 times 12?', expectedTools: [{ name: 'multiply', arguments: { a: 12, b: 12 } }] },
    { id: 'plain', input: 'Say none.', expected: 'none' },
  ],
  tools: [tool('multiply', (a, b) => a * b), tool('add', (a, b) => a + b)],
  task: toolLoop({ maxTurns: 4 }),
  scorers: [scorers.toolCalls(), scorers.custom('ran', () => true)],
});

describe('scorers.toolCalls in a describeEval run against the simulator', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSimServer({ responders: { [EVAL]: responder } });
  });
  afterAll(() => sim?.close());

  it('the expected calls score 1, a wrong argument 0 with its reason; the trace and the viewer carry the expected calls', async () => {
    const out = tempDir('eval-tool-calls');
    const run = await runSuite(def, {
      OPENAI_BASE_URL: sim.url,
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_OUT_DIR: out,
    });
    const byId = Object.fromEntries(run.metas.map((m) => [m.id, m]));
    expect(byId.mul?.scores?.tool_calls).toBe(1);
    expect(byId.chain?.scores?.tool_calls).toBe(1);
    expect(byId.wrong?.scores?.tool_calls).toBe(0);
    expect(byId.plain?.scores?.tool_calls).toBeNull();
    expect(byId.wrong!.pass).toBe(false);
    expect(byId.wrong!.reason).toContain('tool_calls: call 1 multiply: b: 21 is not 12 (expected 12, got 21)');
    expect(byId.mul!.pass && byId.chain!.pass && byId.plain!.pass).toBe(true);

    const summary = readJson<{ metrics: Record<string, { value: number; n: number }> }>(
      join(run.outDir, 'summary.json'),
    );
    expect(summary.metrics.tool_calls!.n).toBe(3);
    expect(summary.metrics.tool_calls!.value).toBeCloseTo(2 / 3, 5);

    const trace = readJson<{ expectedTools: unknown }>(join(run.outDir, byId.chain!.trace!));
    expect(trace.expectedTools).toEqual([
      { name: 'multiply', arguments: { a: 6, b: 7 } },
      { name: 'add', arguments: '(function)' },
    ]);
    const wrongTrace = readJson(join(run.outDir, byId.wrong!.trace!));
    const shown = mapCase({ suite: EVAL, meta: byId.wrong! as unknown as Record<string, unknown>, trace: wrongTrace });
    expect(shown.detail.sections.find((s) => s.title === 'Expected tool calls beside the calls made')).toMatchObject({
      rows: [['1', 'multiply({"a":12,"b":12})', '1', 'multiply({"a":12,"b":21})']],
    });
  });
});
