/**
 * describeEval's types, checked by `tsc --noEmit` (`npm run typecheck`), never run: each `@ts-expect-error` line
 * must be a type error (tsc fails on an unused one), every other line must compile.
 */
import {
  type ChatMessage,
  describeEval,
  type EvalCase,
  mcp,
  type Scorer,
  scorers,
  toolLoop,
} from '../../harness/api/index.ts';

interface Expected {
  answer: string;
  calls: number;
}

const typedData = (): EvalCase<string, Expected>[] => [
  { input: 'What is 6 times 7?', expected: { answer: '42', calls: 1 } },
];

// The case types given: they reach every scorer, the built-in ones' callbacks included.
describeEval<string, Expected>('typed', {
  data: typedData,
  task: toolLoop(),
  scorers: [
    scorers.answerMatches({ expected: ({ expected }) => expected?.answer }),
    scorers.custom('calls', ({ expected, output }) => output.toolCalls.length === expected?.calls),
    // @ts-expect-error: `answr` is no field of the expected value
    scorers.custom('typo', ({ expected }) => expected?.answr === '42'),
    // @ts-expect-error: the input is a string here, not a message list
    scorers.custom('input', ({ input }) => input.some((m: ChatMessage) => m.role === 'user')),
  ],
});

// A row whose expected value has the wrong shape is refused.
describeEval<string, Expected>('rows', {
  // @ts-expect-error: `calls` must be a number
  data: () => [{ input: 'q', expected: { answer: '42', calls: 'one' } }],
  task: toolLoop(),
  scorers: [],
});

// Inferred from data(): a scorer written as `{ name, score }` is typed by it.
describeEval('inferred', {
  data: typedData,
  task: toolLoop(),
  scorers: [
    scorers.answerMatches(),
    { name: 'calls', score: ({ expected, output }) => output.toolCalls.length === expected?.calls },
    // @ts-expect-error: `answr` is no field of the expected value
    { name: 'typo', score: ({ expected }) => expected?.answr === '42' },
  ],
});

// A message list as input: toolLoop takes it, scorers see it typed.
const conversation: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'What is 6 times 7?' },
];
describeEval('chat', {
  data: () => [{ input: conversation, expected: '42' }],
  task: toolLoop(),
  scorers: [
    scorers.answerMatches(),
    { name: 'turns', score: ({ input, expected }) => input.length > 0 && expected?.length === 2 },
    // @ts-expect-error: expected is a string, it has no `answer`
    { name: 'shape', score: ({ expected }) => expected?.answer === '42' },
  ],
});

// A task of your own: its input and output types reach the scorers.
const product: Scorer<{ a: number; b: number }, number, { product: number }> = scorers.custom(
  'product',
  ({ output, expected }) => output.product === expected,
);
describeEval('own', {
  data: () => [{ input: { a: 6, b: 7 }, expected: 42 }],
  task: (input) => ({ product: input.a * input.b }),
  scorers: [
    product,
    // @ts-expect-error: the output has no `answer`
    { name: 'answer', score: ({ output }) => output.answer === '42' },
  ],
});

describeEval<{ a: number; b: number }, number, { product: number }>('own-builtin', {
  data: () => [{ input: { a: 6, b: 7 }, expected: 42 }],
  task: (input) => ({ product: input.a * input.b }),
  // @ts-expect-error: the output is not toolLoop's, so a built-in answer scorer does not fit it
  scorers: [product, scorers.answerMatches()],
});

describeEval('own-task-input', {
  data: () => [{ input: { a: 6, b: 7 } }],
  // @ts-expect-error: the input has no field `c`
  task: (input) => ({ product: input.c }),
  scorers: [],
});

// toolLoop's output is what the built-in scorers read: a task of another input type does not take toolLoop.
describeEval('wrong-input', {
  data: () => [{ input: 42 }],
  // @ts-expect-error: toolLoop takes a string or a message list
  task: toolLoop(),
  scorers: [],
});

// Expected tool calls: a name, arguments as an object or a test of the actual ones, rules per argument path; a
// case's own comparison modes. Each wrong field is refused.
describeEval('expected-tools', {
  data: () => [
    {
      input: 'What is 6 times 7?',
      expectedTools: [
        { name: 'multiply', arguments: { a: 6, b: 7 }, rules: { a: { tolerance: 0.5 } } },
        { name: 'add', arguments: (actual) => actual.a === 42 },
        { name: 'lookup' },
      ],
      expectedToolsMatch: { order: 'any', args: 'subset' },
    },
  ],
  task: toolLoop(),
  scorers: [scorers.toolCalls(), scorers.toolCalls({ order: 'subset', args: 'subset', name: 'some_calls' })],
});

const wrongTools: EvalCase[] = [
  // @ts-expect-error: `nmae` is no field of an expected call (and `name` is missing)
  { input: 'q', expectedTools: [{ nmae: 'multiply' }] },
  // @ts-expect-error: arguments are an object or a function, not a number
  { input: 'q', expectedTools: [{ name: 'multiply', arguments: 3 }] },
  // @ts-expect-error: a rule's field is checked too
  { input: 'q', expectedTools: [{ name: 'multiply', rules: { a: { tolerence: 1 } } }] },
  // @ts-expect-error: `sorted` is no order mode
  { input: 'q', expectedToolsMatch: { order: 'sorted' } },
];
// @ts-expect-error: `exact` is an args mode, not an order mode
scorers.toolCalls({ order: 'exact' });
void wrongTools;
describeEval('expected-tools-inline', {
  data: () => [
    // @ts-expect-error: inside data() too, an expected call's fields are checked
    { input: 'q', expectedTools: [{ name: 'multiply', arguments: 3 }] },
  ],
  task: toolLoop(),
  scorers: [scorers.toolCalls()],
});

// MCP servers beside the eval's own tools, in one list; a server is reached one way only.
describeEval('mcp-tools', {
  data: () => [{ input: 'q' }],
  tools: [
    mcp({ command: 'node', args: ['server.js'], env: { K: 'v' }, perCase: 'restart' }),
    mcp({ url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer x' } }),
    mcp.fromConfig('memory', { prefix: 'mem_', beforeCase: async (client) => void (await client.listTools()) }),
    { name: 'own', run: () => 'x' },
  ],
  task: toolLoop(),
  scorers: [scorers.toolCalls()],
});
// @ts-expect-error a server needs a command, a URL or a name
mcp({ args: ['x'] });
// @ts-expect-error perCase is 'share' or 'restart'
mcp({ command: 'node', perCase: 'always' });
