// BFCL's prompt-mode decoder (`[func(a=1)]` → `[{func: {a: 1}}]`) against BFCL's own Python: generated call texts
// from a grammar of Python expressions (calls with dotted names, positional and keyword arguments, every literal
// form, arithmetic, subscripts, nested calls, lambdas, comprehensions, f-strings, walrus, starred items) and
// near-miss noise over the same alphabet. Decoding must fail exactly when BFCL's fails and otherwise give the
// identical Python value; the call strings of decode_execute must be identical too.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeTagged, differs, type Tagged } from '../core/pyliteral/testkit.ts';
import {
  decodeAstPrompting,
  decodeExecutePrompting,
  DecodeError,
  isEmptyOutput,
  isFunctionCallingFormat,
} from './decode.ts';
import { BfclUnsupported } from './py.ts';
import { BfclOracle, hasReference } from './testkit.ts';

const HEAVY = process.env.TOOLGAUGE_BFCL_HEAVY === '1';
const RUNS = HEAVY ? 20_000 : 500;

const started = hasReference() ? await BfclOracle.start() : { skip: 'no ../shared/data/bfcl/reference' };
const oracle = 'skip' in started ? undefined : started;
afterAll(async () => oracle?.close());

const name = fc.constantFrom(
  'f',
  'get_weather',
  'math',
  'sqrt',
  'x',
  'json',
  'len',
  'np',
  'a_b',
  'True',
  'None',
  'lambda',
  'ｆ',
  'café',
  'not',
  'print',
);
const dotted = fc.array(name, { minLength: 1, maxLength: 3 }).map((xs) => xs.join('.'));
const number = fc.constantFrom(
  '0',
  '5',
  '5.0',
  '-5',
  '1e3',
  '1_000',
  '0x1F',
  '0o17',
  '0b101',
  '.5',
  '5.',
  '2j',
  '007',
  '1e400',
  '3.14159',
  '-0.0',
  '+5',
  '~5',
  'not 5',
  '- 5',
  '--5',
  '1_',
  '9'.repeat(30),
);
const string = fc.constantFrom(
  "'a'",
  '"b c"',
  "'it''s'",
  "'don\\'t'",
  '"x\\ny"',
  "r'\\d'",
  "b'bytes'",
  "u'uni'",
  "f'{x}'",
  "f'{x!r:>3}'",
  "f'{}'",
  "'\\N{DASH}'",
  "'\\N{EM DASH}'",
  "'a' 'b'",
  "'a' b'b'",
  '"""tri"""',
  "''",
  "'unterminated",
  "'\\x41'",
  "'é'",
  "'2024-01-01'",
);
const atom = fc.oneof(
  number,
  string,
  dotted,
  fc.constantFrom('True', 'False', 'None', '...', '[]', '{}', '()', 'x[0]', 'x[1:2]', 'x[::2]', 'x[1, 2]', 'x[*a]'),
);

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc
      .tuple(
        tie('e'),
        fc.constantFrom(
          ' + ',
          '-',
          ' * ',
          '/',
          '//',
          ' % ',
          '**',
          ' | ',
          ' & ',
          '<<',
          ' == ',
          ' < ',
          ' and ',
          ' or ',
          ' if x else ',
          ' in ',
          ' not in ',
          ' is not ',
        ),
        tie('e'),
      )
      .map(([a, op, b]) => `${a}${op}${b}`),
    fc.array(tie('e'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc.array(tie('e'), { maxLength: 3 }).map((xs) => `(${xs.join(', ')}${xs.length === 1 ? ',' : ''})`),
    fc
      .array(fc.tuple(tie('e'), tie('e')), { maxLength: 3 })
      .map((xs) => `{${xs.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
    fc.array(tie('e'), { maxLength: 2 }).map((xs) => `{${xs.join(', ')}}`),
    fc
      .tuple(dotted, fc.array(tie('e'), { maxLength: 2 }), fc.array(fc.tuple(name, tie('e')), { maxLength: 2 }))
      .map(([f, a, k]) => `${f}(${[...a, ...k.map(([n, v]) => `${n}=${v}`)].join(', ')})`),
    fc.tuple(tie('e'), tie('e')).map(([a, b]) => `${a}[${b}]`),
    tie('e').map((a) => `lambda x: ${a}`),
    tie('e').map((a) => `[y for y in ${a} if y]`),
    tie('e').map((a) => `(y := ${a})`),
    tie('e').map((a) => `*${a}`),
    tie('e').map((a) => `**${a}`),
    tie('e').map((a) => `-${a}`),
    tie('e').map((a) => `not ${a}`),
    tie('e').map((a) => `await ${a}`),
    tie('e').map((a) => `(${a})`),
    tie('e').map((a) => `f'{${a}}'`),
  ),
})).e;

const kwarg = fc
  .tuple(fc.constantFrom('a', 'b', 'city', 'unit', 'True', 'x.y', 'a'), expr)
  .map(([k, v]) => `${k}=${v}`);
const call = fc
  .tuple(dotted, fc.array(expr, { maxLength: 2 }), fc.array(kwarg, { maxLength: 4 }), fc.boolean())
  .map(([f, pos, kws, posLast]) => `${f}(${(posLast ? [...kws, ...pos] : [...pos, ...kws]).join(', ')})`);
const wrapper = fc.constantFrom(
  '[%]',
  '%',
  '[%]\n',
  '```python\n[%]\n```',
  '```\n%\n```',
  "'[%]'",
  ' [%] ',
  'Sure: [%]',
  '[%] done',
  '[%],',
  '(%)',
  '{%}',
  '[[%]]',
  '[%]\n[%]',
  '  [%]',
);
const callText = fc
  .tuple(fc.array(call, { minLength: 0, maxLength: 3 }), wrapper)
  .map(([calls, w]) => w.replace(/%/g, calls.join(', ')));
const noise = fc
  .array(
    fc.constantFrom(
      'f',
      '(',
      ')',
      '[',
      ']',
      'a',
      '=',
      '1',
      ',',
      ' ',
      "'",
      '"',
      '.',
      ':',
      '-',
      '\n',
      'x',
      '{',
      '}',
      '*',
      '`',
      '#',
      '\\',
      'é',
      'True',
      'lambda',
      'for',
      'in',
      'if',
      'else',
      '0x',
      'j',
      '_',
    ),
    { maxLength: 30 },
  )
  .map((xs) => xs.join(''));
const mutated = callText.chain((t) =>
  fc
    .tuple(
      fc.nat({ max: Math.max(0, t.length) }),
      fc.constantFrom('', '(', ')', ',', '=', "'", '[', ']', ' ', 'x', '\n'),
    )
    .map(([i, ch]) => t.slice(0, i) + ch + t.slice(i + 1)),
);

type Decoded = { ok: true; v: Tagged; format: boolean; empty: boolean } | { ok: false; err: string };
type Executed = { ok: true; calls: string[] | null } | { ok: false; err: string };

async function check(text: string): Promise<'undecided' | 'decoded' | 'failed'> {
  const result = JSON.stringify(text);
  const [ref, refExec] = await oracle!.ask<[Decoded, Executed]>([
    { op: 'decode', fmt: 'pythonic', result },
    { op: 'execute', fmt: 'pythonic', result },
  ]);
  let ours;
  try {
    ours = decodeAstPrompting({ t: 'str', v: text });
  } catch (err) {
    if (err instanceof BfclUnsupported) return 'undecided';
    if (!(err instanceof DecodeError)) throw err;
    if (ref.ok)
      throw new Error(`${JSON.stringify(text)}: we failed (${err.message}), BFCL decoded ${JSON.stringify(ref.v)}`);
    return 'failed';
  }
  if (!ref.ok) throw new Error(`${JSON.stringify(text)}: BFCL failed (${ref.err}), we decoded`);
  const d = differs(ours, decodeTagged(ref.v));
  if (d) throw new Error(`${JSON.stringify(text)}: ${d}`);
  expect(isFunctionCallingFormat(ours)).toBe(ref.format);
  expect(isEmptyOutput(ours)).toBe(ref.empty);
  let calls: string[] | undefined;
  try {
    calls = decodeExecutePrompting({ t: 'str', v: text });
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
  }
  if (refExec.ok && refExec.calls) expect(calls, JSON.stringify(text)).toEqual(refExec.calls);
  if (!refExec.ok) expect(calls, JSON.stringify(text)).toBeUndefined();
  return 'decoded';
}

describe.skipIf(!oracle)(
  `prompt-mode decoding agrees with BFCL's ast_parse${oracle ? '' : ' — SKIPPED: no BFCL reference Python'}`,
  () => {
    for (const [label, arb] of [
      ['generated call lists', callText],
      ['call lists with one character changed', mutated],
      ['noise over the call alphabet', noise],
    ] as const) {
      it(`${label} (${RUNS})`, { timeout: HEAVY ? 600_000 : 60_000 }, async () => {
        const seen = { undecided: 0, decoded: 0, failed: 0 };
        await fc.assert(
          fc.asyncProperty(arb, async (t) => {
            seen[await check(t)]++;
          }),
          { numRuns: RUNS, seed: 20260101 },
        );
        expect(seen.undecided).toBeLessThan(RUNS * 0.05);
        // Both outcomes must be exercised (noise rarely decodes, but a few "[]"-like texts do).
        expect(seen.decoded).toBeGreaterThan(label.startsWith('noise') ? 0 : RUNS * 0.02);
        expect(seen.failed).toBeGreaterThan(RUNS * 0.05);
      });
    }
  },
);

// A hostile or merely verbose model output must get BFCL's verdict, not a harness error: CPython parses a string
// literal of any length, and refuses an expression nested beyond its recursion limit (RecursionError/MemoryError,
// which BFCL's decoder treats as an output that is not a call). Both once overflowed the JavaScript stack.
describe('prompt-mode decoding of very long and very deep outputs', () => {
  it('decodes a call whose string argument is 300,000 characters long', () => {
    const long = 'A'.repeat(300_000);
    const calls = decodeExecutePrompting({
      t: 'str',
      v: `[create_ticket(title='${long}', tag=b'${'b'.repeat(300_000)}')]`,
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.startsWith(`create_ticket(title='${long}'`)).toBe(true);
  });

  it.each([
    ['unary minus', `${'-'.repeat(100_000)}1`],
    ['not', `${'not '.repeat(100_000)}1`],
    ['power', `${'2**'.repeat(100_000)}2`],
    ['conditional', `${'1 if 1 else '.repeat(100_000)}1`],
    ['lambda', `${'lambda: '.repeat(100_000)}1`],
  ])('refuses an argument nested 100,000 deep (%s) as an undecodable output', (_label, arg) => {
    expect(() => decodeExecutePrompting({ t: 'str', v: `[create_ticket(title=${arg})]` })).toThrow(DecodeError);
  });
});
