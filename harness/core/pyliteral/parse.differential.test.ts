// Differential tests of the one Python front-end against a real CPython 3.11 (one python3 child, JSON lines):
// `parseEval` against `ast.parse(src, mode="eval").body` on calls with keyword arguments, nested containers,
// numbers, prefixed strings with escapes, bytes and operators, node for node; and `int(s)` / `float(s)` of a str.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { pyFloatOfStr, pyIntOfStr } from './builtins.ts';
import type { Node } from './nodes.ts';
import { parseEval, PySyntaxError } from './parser.ts';
import { prefetchedOracle } from '../testkit.ts';
import { startOracle } from './python-oracle.ts';
import { decodeTagged, differs, literalSource, stringSource, type Tagged } from './testkit.ts';
import { PyLiteralUnsupported, type PyValue } from './value.ts';

const { oracle, skipReason } = await startOracle('python front-end');
afterAll(async () => oracle?.close());

// Cheap by default (a few seconds); TOOLGAUGE_PY_DIFF_RUNS=20000 for a thorough run.
const RUNS = Number(process.env.TOOLGAUGE_PY_DIFF_RUNS || 400);

type RefParse = { ok: true; tree: unknown } | { ok: false; err: string };
type RefConverted = { ok: true; v: Tagged } | { ok: false; err: string };

/** Our tree in the oracle's JSON shape ({"_": type, field: value}); a Constant keeps its PyValue. */
function shape(x: unknown): unknown {
  if (x === undefined || x === null) return null;
  if (Array.isArray(x)) return x.map(shape);
  if (typeof x !== 'object') return x;
  const o = x as Record<string, unknown>;
  if (o.k === 'Constant') return { _: 'Constant', value: o.value, kind: o.kind ?? null };
  const out: Record<string, unknown> = { _: typeof o.k === 'string' ? o.k : 'iter' in o ? 'comprehension' : 'keyword' };
  for (const [key, v] of Object.entries(o)) {
    if (key === 'k' || key === 'raw') continue;
    if (key === 'isAsync') out.is_async = v ? 1 : 0;
    else out[key] = shape(v);
  }
  return out;
}

/** Where our shaped tree and Python's differ, or undefined. */
function treeDiff(ours: unknown, ref: unknown, path: string): string | undefined {
  if (ref !== null && typeof ref === 'object' && !Array.isArray(ref) && (ref as { _: string })._ === 'Constant') {
    const o = ours as { _?: string; value?: PyValue; kind?: string | null };
    if (o?._ !== 'Constant') return `${path}: ours is ${o?._}, python's a Constant`;
    const r = ref as { value: Tagged; kind: string | null };
    if (o.kind !== r.kind) return `${path}.kind: ${o.kind} vs ${r.kind}`;
    return differs(o.value!, decodeTagged(r.value), `${path}.value`);
  }
  if (Array.isArray(ref)) {
    if (!Array.isArray(ours) || ours.length !== ref.length)
      return `${path}: ${JSON.stringify(ours)?.slice(0, 80)} vs ${ref.length} items`;
    for (let k = 0; k < ref.length; k++) {
      const d = treeDiff(ours[k], ref[k], `${path}[${k}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (ref !== null && typeof ref === 'object') {
    if (ours === null || typeof ours !== 'object') return `${path}: ours is ${String(ours)}`;
    const o = ours as Record<string, unknown>;
    const r = ref as Record<string, unknown>;
    for (const key of new Set([...Object.keys(o), ...Object.keys(r)])) {
      const d = treeDiff(o[key] ?? null, r[key] ?? null, `${path}.${key}`);
      if (d) return d;
    }
    return undefined;
  }
  return ours === ref ? undefined : `${path}: ${String(ours)} vs ${String(ref)}`;
}

type Ask = <A>(req: unknown) => Promise<A>;

async function checkParse(src: string, ask: Ask): Promise<void> {
  const ref = await ask<RefParse>({ op: 'parse', src });
  let ours: Node | undefined;
  let err: unknown;
  try {
    ours = parseEval(src);
  } catch (e) {
    err = e;
  }
  const where = JSON.stringify(src);
  if (err !== undefined && !(err instanceof PySyntaxError) && !(err instanceof PyLiteralUnsupported))
    throw new Error(`${where}: threw ${String(err)}`);
  if (!ref.ok) {
    if (err === undefined) throw new Error(`${where}: python raised ${ref.err}, we parsed it`);
    return;
  }
  // A str Python holds but a JS string cannot (a surrogate pair spelled as two escapes) is refused, never guessed.
  if (err instanceof PyLiteralUnsupported) return;
  if (err !== undefined) throw new Error(`${where}: python parsed it, we raised ${(err as Error).message}`);
  const d = treeDiff(shape(ours), ref.tree, '$');
  if (d) throw new Error(`${where}: ${d}`);
}

const pick = <T>(xs: readonly T[]) => fc.constantFrom(...xs);
const NAMES = [
  'f',
  'get_weather',
  'math.sqrt',
  'a.b.c',
  'ｆ',
  'ſet',
  'x_1',
  '_',
  'True',
  'None',
  'lambda',
  'not',
  'if',
  'print',
  'ℌ',
];
const IDENTS = ['a', 'unit', 'x_y', 'ｋ', 'True', 'None', 'in', 'lambda', '_k1', 'ſ'];
const space = pick(['', '', ' ', '  ', '\n', '\t']);

/** A call with positional and keyword arguments (values: literals, names, nested calls), BFCL-style lists of calls. */
const callSource: fc.Arbitrary<string> = fc.letrec<{ call: string; arg: string }>((tie) => ({
  call: fc
    .tuple(
      pick(NAMES),
      fc.array(fc.tuple(tie('arg'), space), { maxLength: 4 }),
      fc.array(fc.tuple(pick(IDENTS), space, tie('arg')), { maxLength: 4 }),
      fc.boolean(),
      pick(['', '', '', '*args', '**kw', '*a, **b']),
    )
    .map(([name, pos, kw, trailing, star]) => {
      const parts = [
        ...pos.map(([a, s]) => `${s}${a}`),
        ...(star ? [star] : []),
        ...kw.map(([k, s, v]) => `${k}${s}=${s}${v}`),
      ];
      return `${name}(${parts.join(', ')}${trailing && parts.length > 0 ? ',' : ''})`;
    }),
  arg: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: literalSource },
    { weight: 1, arbitrary: pick(NAMES) },
    { weight: 1, arbitrary: tie('call') },
  ),
})).call;

const OPS = [
  '+',
  '-',
  '*',
  '/',
  '//',
  '%',
  '**',
  '<<',
  '>>',
  '&',
  '|',
  '^',
  '@',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'not in',
  'is',
  'is not',
  'and',
  'or',
  'if 1 else',
  ':=',
];
const operand = fc.oneof(
  literalSource,
  pick(NAMES),
  pick(['-1', '~x', 'not y', '+2.5', '(a)', 'x[1:2]', 'x[::2, 1]', '[y for y in z if y]', '{k: v for k, v in d}']),
);
const exprSource: fc.Arbitrary<string> = fc
  .tuple(operand, fc.array(fc.tuple(pick(OPS), operand), { minLength: 1, maxLength: 3 }))
  .map(([first, rest]) => `${first}${rest.map(([op, b]) => ` ${op} ${b}`).join('')}`);

/** Near-valid: one character deleted, inserted or replaced. */
const mutated = (src: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc
    .tuple(src, fc.nat(), pick(['del', 'ins', 'rep']), pick([...`'"\\()[]{},:=+-.#_0xjebru* \n`]))
    .map(([s, at, how, ch]) => {
      const k = s.length === 0 ? 0 : at % (s.length + 1);
      if (how === 'del') return s.slice(0, k) + s.slice(k + 1);
      if (how === 'ins') return s.slice(0, k) + ch + s.slice(k);
      return s.slice(0, k) + ch + s.slice(k + 1);
    });

/** ast.parse against parseEval on RUNS sources drawn from `arb`, the oracle asked in one batch first. */
async function assertParse(arb: fc.Arbitrary<string>): Promise<void> {
  const { seed, ask } = await prefetchedOracle(oracle!, arb, RUNS, (src) => ({ op: 'parse', src }));
  await fc.assert(
    fc.asyncProperty(arb, (src) => checkParse(src, ask)),
    { numRuns: RUNS, seed },
  );
}

describe.skipIf(skipReason !== undefined)(
  `parseEval agrees with python3 ast.parse(mode="eval")${skipReason ? ` — SKIPPED: ${skipReason}` : ''}`,
  () => {
    it('on calls with keyword arguments, and lists of them', async () => {
      await assertParse(
        fc.oneof(
          callSource,
          fc.array(callSource, { minLength: 1, maxLength: 3 }).map((cs) => `[${cs.join(', ')}]`),
        ),
      );
    });

    it('on literals: numbers, prefixed strings with escapes, bytes, nested containers', async () => {
      await assertParse(fc.oneof(literalSource, stringSource));
    });

    it('on operators, comparisons, conditionals, slices and comprehensions', async () => {
      await assertParse(exprSource);
    });

    it('on near-valid calls and expressions (one character deleted, inserted or replaced)', async () => {
      await assertParse(mutated(fc.oneof(callSource, exprSource)));
    });
  },
);

const numberText: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(
      pick([
        ...'0123456789',
        '0',
        '1',
        '_',
        '+',
        '-',
        '.',
        'e',
        'E',
        ' ',
        '\t',
        '\u0f24',
        '\u0661',
        '\u00a0',
        '\u2003',
        'inf',
        'nan',
        'x',
        'Infinity',
      ]),
      { maxLength: 10 },
    )
    .map((xs) => xs.join('')),
  pick([
    '010',
    ' 0_10 ',
    '00',
    '-0',
    '+7',
    '1__0',
    '_1',
    '1_',
    '0'.repeat(4300),
    '0'.repeat(4301),
    '1'.repeat(4300),
    `${'1_'.repeat(4300)}1`,
    '1e5',
    '.5',
    '5.',
    '-iNF',
    '+nan',
    '1_0.5_0e1_0',
  ]),
);

async function checkConverted(op: 'int' | 'float', text: string, ask: Ask): Promise<void> {
  const ref = await ask<RefConverted>({ op, text });
  const got = op === 'int' ? pyIntOfStr(text) : pyFloatOfStr(text);
  const where = `${op}(${JSON.stringify(text)})`;
  if (!ref.ok) {
    expect(got, `${where}: python raised ${ref.err}`).toBeUndefined();
    return;
  }
  expect(got, `${where}: python gave a value`).not.toBeUndefined();
  const ours: PyValue = op === 'int' ? { t: 'int', v: got as bigint } : { t: 'float', v: got as number };
  const d = differs(ours, decodeTagged(ref.v));
  if (d) throw new Error(`${where}: ${d}`);
}

describe.skipIf(skipReason !== undefined)(
  `int(s) and float(s) agree with python3${skipReason ? ` — SKIPPED: ${skipReason}` : ''}`,
  () => {
    it('on digits, underscores, signs, spaces, Unicode digits and the special floats', async () => {
      const { seed, ask } = await prefetchedOracle(oracle!, numberText, RUNS, (text) => [
        { op: 'int', text },
        { op: 'float', text },
      ]);
      await fc.assert(
        fc.asyncProperty(numberText, async (text) => {
          await checkConverted('int', text, ask);
          await checkConverted('float', text, ask);
        }),
        { numRuns: RUNS, seed },
      );
    });
  },
);
