import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import type { EvalCase } from '../../harness/kit/eval/types.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { startSimServer } from '../../harness/sim/server.ts';
import { tempDir } from '../helpers/cli.ts';

// A user's describeEval with no base URL, in process over real HTTP: the run starts the simulator, the eval hands it
// its cases, and the simulator plays each from what it declares. What the tools did is counted by the tools
// themselves (the oracle), not read from the scorers.

const CASES: EvalCase[] = [
  {
    id: 'mul-1',
    input: 'What is 6 times 7?',
    expected: 'PRODUCT-42',
    expectedTools: [{ name: 'multiply', arguments: { a: 6, b: 7 } }],
  },
  {
    id: 'mul-2',
    input: 'What is 12 times 12?',
    expected: 'PRODUCT-144',
    expectedTools: [{ name: 'multiply', arguments: { a: 12, b: 12 } }],
  },
];

/** The eval, with the multiply calls its tool received. */
function arith(name: string) {
  const calls: Array<Record<string, unknown>> = [];
  const def = evalSuite(name, {
    data: () => CASES,
    tools: [
      {
        name: 'multiply',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
        run: (args) => {
          calls.push(args);
          return String(args.a * args.b);
        },
      },
    ],
    task: toolLoop({ maxTurns: 4 }),
    scorers: [scorers.answerMatches()],
  });
  return { def, calls };
}

const run = (name: string, model: string, extra: Record<string, string> = {}) => {
  const { def, calls } = arith(name);
  return runSuite(def, { TOOLGAUGE_MODEL: model, TOOLGAUGE_OUT_DIR: tempDir(`eval-sim-${name}`), ...extra }).then(
    (r) => ({ ...r, calls }),
  );
};

describe('a describeEval answered by the simulator, with no base URL', () => {
  it('sim:oracle passes every case, calling the expected tool with the expected arguments', async () => {
    const r = await run('arith-oracle', 'sim:oracle');
    expect(r.finalized.harnessErrors).toBe(0);
    expect(r.metas.map((m) => m.pass)).toEqual([true, true]);
    expect(r.finalized.summary.metrics.pass_rate).toMatchObject({ value: 1, n: 2 });
    expect(r.calls).toEqual(
      expect.arrayContaining([
        { a: 6, b: 7 },
        { a: 12, b: 12 },
      ]),
    );
    expect(r.calls).toHaveLength(2);
  });

  it('sim:wrong fails every case; sim:no_call answers without calling the tool', async () => {
    const wrong = await run('arith-wrong', 'sim:wrong');
    expect(wrong.finalized.harnessErrors).toBe(0);
    expect(wrong.metas.map((m) => m.pass)).toEqual([false, false]);
    const none = await run('arith-none', 'sim:no_call');
    expect(none.finalized.harnessErrors).toBe(0);
    expect(none.calls).toEqual([]);
    expect(none.metas.map((m) => m.pass)).toEqual([true, true]);
  });
});

describe("a simulator with a program's own responder under the eval's name", () => {
  it('answers the eval with that responder', async () => {
    const sim = await startSimServer({
      responders: { 'arith-own': { chat: () => ({ content: '<answer>PRODUCT-42</answer>' }) } },
    });
    try {
      const r = await run('arith-own', 'sim:oracle', { TOOLGAUGE_SIM_URL: sim.url });
      expect(r.finalized.harnessErrors).toBe(0);
      expect(Object.fromEntries(r.metas.map((m) => [m.id, m.pass]))).toEqual({ 'mul-1': true, 'mul-2': false });
      expect(r.calls).toEqual([]);
    } finally {
      await sim.close();
    }
  });
});

describe('case data and an endpoint that is not the simulator', () => {
  it('never reaches it: no registration, no expected value in any request', async () => {
    const seen: Array<{ path: string; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', body });
        res.setHeader('content-type', 'application/json');
        if (req.url?.endsWith('/models'))
          return res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', owned_by: 'me' }] }));
        res.end(
          JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 0,
            model: 'm',
            choices: [
              { index: 0, message: { role: 'assistant', content: '<answer>1</answer>' }, finish_reason: 'stop' },
            ],
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const r = await run('arith-real', 'm', { OPENAI_BASE_URL: url });
      expect(r.finalized.harnessErrors).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      // Chat requests, and the run's one read of the models list (the header's provenance): no registration.
      expect(seen.filter((s) => !s.path.endsWith('/chat/completions'))).toEqual([{ path: '/v1/models', body: '' }]);
      expect(seen.filter((s) => /PRODUCT-|expectedTools/.test(s.body))).toEqual([]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
