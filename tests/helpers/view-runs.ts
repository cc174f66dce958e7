import type { ChatBody } from '../../harness/sim/server.ts';
import { startSimServer } from '../../harness/sim/server.ts';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';

/**
 * Two tiny describeEval runs for the viewer's tests: real HTTP to the simulator, the real tool loop, the kit's files.
 * `sim:oracle` calls the arithmetic tool and answers its result; `sim:wrong` calls it too, then answers one more
 * (and, on the hostile case, answers with markup). The hostile case carries markup and a script end in its id,
 * its tag and its question: a page that renders any of them as HTML runs `pwned`.
 */
export const PWN = (where: string) => `document.documentElement.dataset.pwned='${where}'`;
export const HOSTILE_ID = `<img src=x onerror="${PWN('id')}">`;
export const HOSTILE_TAG = `</script><script>${PWN('tag')}</script>`;
export const HOSTILE_ANSWER = `<img src=y onerror="${PWN('answer')}">`;
export const SUITE = 'viewdemo';
export const FAILING = { id: 'add-1', question: 'What is 19 plus 23?' };

const question = (body: ChatBody) =>
  /(-?\d+)\s+(times|plus)\s+(-?\d+)/.exec(String(body.messages.find((m) => m.role === 'user')?.content ?? ''));

export async function twoViewRuns(dirA: string, dirB: string): Promise<void> {
  const sim = await startSimServer({
    responders: {
      [SUITE]: {
        chat: (spec, body) => {
          const m = question(body);
          if (!m) return { content: '<answer>I cannot tell</answer>' };
          const result = [...body.messages].reverse().find((x) => x.role === 'tool');
          if (!result) {
            const name = m[2] === 'times' ? 'multiply' : 'add';
            return {
              content: null,
              tool_calls: [
                {
                  id: 'call_0',
                  type: 'function',
                  function: { name, arguments: JSON.stringify({ a: Number(m[1]), b: Number(m[3]) }) },
                },
              ],
            };
          }
          if (spec.name === 'wrong' && m[2] === 'plus') {
            const hostile = Number(m[1]) === 2 ? ` ${HOSTILE_ANSWER}` : '';
            return { content: `The result is <answer>${Number(result.content) + 1}${hostile}</answer>` };
          }
          return { content: `The result is <answer>${String(result.content)}</answer>` };
        },
      },
    },
  });
  const number = { type: 'number' };
  const def = evalSuite(SUITE, {
    data: () => [
      { id: 'mul-1', input: 'What is 6 times 7?', expected: '42', tags: { op: 'mul' } },
      {
        id: FAILING.id,
        input: FAILING.question,
        expected: '42',
        expectedTools: [{ name: 'add', arguments: { a: 19, b: 23 } }],
        tags: { op: 'add' },
      },
      { id: HOSTILE_ID, input: `What is 2 plus 2? ${HOSTILE_TAG}`, expected: '4', tags: { op: HOSTILE_TAG } },
    ],
    tools: [
      {
        name: 'multiply',
        parameters: { type: 'object', properties: { a: number, b: number } },
        run: ({ a, b }) => String(a * b),
      },
      {
        name: 'add',
        parameters: { type: 'object', properties: { a: number, b: number } },
        run: ({ a, b }) => String(a + b),
      },
    ],
    task: toolLoop({ system: 'Use the tools for arithmetic. End with <answer>…</answer>.', maxTurns: 4 }),
    scorers: [scorers.answerMatches()],
  });
  try {
    await runSuite(def, { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: dirA, TOOLGAUGE_SIM_URL: sim.url });
    await runSuite(def, { TOOLGAUGE_MODEL: 'sim:wrong', TOOLGAUGE_OUT_DIR: dirB, TOOLGAUGE_SIM_URL: sim.url });
  } finally {
    await sim.close();
  }
}
