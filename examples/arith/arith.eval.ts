// A tool-calling eval: `npx toolgauge eval arith.eval.ts --model sim:oracle` (the built-in simulator plays each case
// from its expectedTools and expected), or `--base-url URL --model M` for your endpoint.
import { describeEval, scorers, toolLoop } from 'toolgauge';

const number = { type: 'number' };

describeEval('arith', {
  data: async () => [
    {
      id: 'mul-1',
      input: 'What is 6 times 7?',
      expected: '42',
      expectedTools: [{ name: 'multiply', arguments: { a: 6, b: 7 } }],
    },
    {
      id: 'mul-2',
      input: 'What is 12 times 12?',
      expected: '144',
      expectedTools: [{ name: 'multiply', arguments: { a: 12, b: 12 } }],
    },
    {
      id: 'add-1',
      input: 'What is 19 plus 23?',
      expected: '42',
      expectedTools: [{ name: 'add', arguments: { a: 19, b: 23 } }],
      tags: { op: 'add' },
    },
  ],
  tools: [
    {
      name: 'multiply',
      description: 'Multiply two numbers',
      parameters: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] },
      run: ({ a, b }) => String(a * b),
    },
    {
      name: 'add',
      description: 'Add two numbers',
      parameters: { type: 'object', properties: { a: number, b: number }, required: ['a', 'b'] },
      run: ({ a, b }) => String(a + b),
    },
  ],
  task: toolLoop({ system: 'Use the tools for arithmetic. End with <answer>…</answer>.', maxTurns: 5 }),
  scorers: [scorers.answerMatches(), scorers.custom('used_a_tool', ({ output }) => output.toolCalls.length > 0)],
  threshold: 1,
});
