// Differential tests: the emulation against a real CPython 3.11 (one long-lived child process, JSON lines).
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  jsonToPy,
  literalEval,
  pyEquals,
  pyLower,
  pyRepr,
  pyStrip,
  PyLiteralError,
  PyLiteralUnsupported,
  type PyValue,
} from './index.ts';
import { prefetchedOracle } from '../testkit.ts';
import { startOracle } from './python-oracle.ts';
import {
  atomSource,
  bigintJson,
  decodeTagged,
  deepSource,
  differs,
  dupKeySource,
  grammarNoise,
  hasFusableSurrogates,
  literalSource,
  mutatedSource,
  topLevelSource,
  type OracleEval,
  type Tagged,
} from './testkit.ts';

const { oracle, skipReason } = await startOracle('pyliteral');
afterAll(async () => oracle?.close());

const RUNS = 2500;

/** Compare literalEval(src) with Python's ast.literal_eval(src); a string describing the mismatch, or undefined. */
function compareEval(src: string, ref: OracleEval): string | undefined {
  let ours: PyValue | undefined;
  let err: unknown;
  try {
    ours = literalEval(src);
  } catch (e) {
    err = e;
  }
  if (err !== undefined && !(err instanceof PyLiteralError)) return `threw a non-PyLiteralError: ${String(err)}`;
  if (!ref.ok) return err ? undefined : `python raised ${ref.err}, we returned ${pyRepr(ours!)}`;
  if (err instanceof PyLiteralUnsupported) {
    return hasFusableSurrogates(decodeTagged(ref.v))
      ? undefined
      : `python gave ${ref.repr}, we said unsupported: ${err.message}`;
  }
  if (err) return `python gave ${ref.repr}, we raised ${(err as Error).message}`;
  const d = differs(ours!, decodeTagged(ref.v));
  if (d) return `value differs: ${d}`;
  if (ref.repr !== null && pyRepr(ours!) !== ref.repr) return `repr ${pyRepr(ours!)} vs python ${ref.repr}`;
  return undefined;
}

type Ask = <A>(req: unknown) => Promise<A>;

async function checkEval(src: string, ask: Ask): Promise<void> {
  const ref = await ask<OracleEval>({ op: 'eval', src });
  const problem = compareEval(src, ref);
  if (problem) throw new Error(`${JSON.stringify(src)}: ${problem}`);
}

/** ast.literal_eval against literalEval on `numRuns` sources drawn from `arb`. */
async function assertEval(arb: fc.Arbitrary<string>, numRuns: number): Promise<void> {
  const { seed, ask } = await prefetchedOracle(oracle!, arb, numRuns, (src) => ({ op: 'eval', src }));
  await fc.assert(
    fc.asyncProperty(arb, (src) => checkEval(src, ask)),
    { numRuns, seed },
  );
}

describe.skipIf(skipReason !== undefined)(
  `literalEval agrees with python3 ast.literal_eval${skipReason ? ` — SKIPPED: ${skipReason}` : ''}`,
  () => {
    it('on numbers, strings, names and set() spellings', async () => {
      await assertEval(atomSource, RUNS);
    });

    it('on nested containers with whitespace, comments and line joins', async () => {
      await assertEval(topLevelSource, RUNS);
    });

    it('on dicts and sets with equal keys in different spellings', async () => {
      await assertEval(dupKeySource, 1000);
    });

    it('on brackets nested about 200 deep', async () => {
      await assertEval(deepSource, 200);
    });

    it('on near-valid sources (one character deleted, inserted or replaced)', async () => {
      await assertEval(mutatedSource, RUNS);
    });

    it('on noise over the grammar alphabet', async () => {
      await assertEval(grammarNoise, RUNS);
    });

    it('pyEquals agrees with == on pairs of literals', async () => {
      const pair = fc.oneof(fc.tuple(literalSource, literalSource), fc.tuple(dupKeySource, dupKeySource), equalishPair);
      const { seed, ask } = await prefetchedOracle(oracle!, pair, RUNS, ([a, b]) => ({ op: 'eq', a, b }));
      await fc.assert(
        fc.asyncProperty(pair, async ([a, b]) => {
          const ref = await ask<{ a: OracleEval; b: OracleEval; eq: boolean | null }>({ op: 'eq', a, b });
          const pa = compareEval(a, ref.a) ?? compareEval(b, ref.b);
          if (pa) throw new Error(`${JSON.stringify([a, b])}: ${pa}`);
          if (ref.eq === null) return;
          let va: PyValue;
          let vb: PyValue;
          try {
            va = literalEval(a);
            vb = literalEval(b);
          } catch (e) {
            if (e instanceof PyLiteralUnsupported) return;
            throw e;
          }
          if (pyEquals(va, vb) !== ref.eq)
            throw new Error(`${JSON.stringify([a, b])}: pyEquals ${!ref.eq}, python == ${ref.eq}`);
          if (pyEquals(vb, va) !== ref.eq) throw new Error(`${JSON.stringify([b, a])}: pyEquals not symmetric`);
        }),
        { numRuns: RUNS, seed },
      );
    });

    it('pyStrip and pyLower agree with str.strip() and str.lower()', async () => {
      const text = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 12 }),
        fc.string({
          unit: fc.constantFrom(..."ΣσςΑαΆ\u0345\u0301 .'-İIiıẞßſKÅ\u2028\x1c\x85\u00a0\u3000\ufeff\t\nAbcDé"),
          maxLength: 12,
        }),
        fc.string({
          unit: fc.oneof(
            fc.constantFrom('Σ', ' ', 'Α', '\u0301', "'", '\u02b0', '\u00ad'),
            fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
          ),
          maxLength: 8,
        }),
      );
      const requests = (s: string) => [
        { op: 'strip', text: s },
        { op: 'lower', text: s },
      ];
      const { seed, ask } = await prefetchedOracle(oracle!, text, RUNS, requests);
      await fc.assert(
        fc.asyncProperty(text, async (s) => {
          const [strip, lower] = await ask<[number[], number[]]>(requests(s));
          expect(units(pyStrip(s)), `strip ${JSON.stringify(s)}`).toEqual(strip);
          expect(units(pyLower(s)), `lower ${JSON.stringify(s)}`).toEqual(lower);
        }),
        { numRuns: RUNS, seed },
      );
    });

    it('jsonToPy(x) is json.loads(JSON.stringify(x))', async () => {
      const json = fc.oneof(
        fc.jsonValue(),
        fc.anything({
          withBigInt: false,
          withBoxedValues: false,
          withDate: false,
          withMap: false,
          withSet: false,
          withTypedArray: false,
          withSparseArray: false,
          withNullPrototype: true,
        }),
      );
      const request = (x: unknown) => {
        const text = JSON.stringify(x);
        return text === undefined ? undefined : { op: 'json', text };
      };
      const { seed, ask } = await prefetchedOracle(oracle!, json, 1000, request);
      await fc.assert(
        fc.asyncProperty(json, async (x) => {
          const text = JSON.stringify(x);
          if (text === undefined) return;
          const ref = await ask<{ ok: true; v: Tagged } | { ok: false }>({ op: 'json', text });
          if (!ref.ok) throw new Error(`python could not load ${text}`);
          const d = differs(jsonToPy(x), decodeTagged(ref.v));
          if (d) throw new Error(`${text}: ${d}`);
        }),
        { numRuns: 1000, seed },
      );
    });
  },
);

const units = (s: string) => Array.from({ length: s.length }, (_, k) => s.charCodeAt(k));

// Pairs of sources built from the same shape, each leaf spelled independently from a group of (mostly) equal
// spellings, containers sometimes switching list/tuple and reordering sets and dicts: == is often true.
const GROUPS = [
  ['1', '1.0', 'True', '1+0j', '0x1', '0b1', '1_0e-1', '+1', '0o1', '1.', '1.0+0j'],
  ['0', '-0.0', 'False', '0j', '00', '-0', '0.', '-0j', '0-0j', '.0'],
  ['2', '2.0', '2+0j', '0b10', '2j', '-2'],
  ['0.5', '.5', '5e-1', '0.5+0j', '0.50'],
  ['9007199254740993', '9007199254740992.0', '9007199254740992', '0x20000000000001', '9007199254740993.0'],
  ['1e999', '1e1000', '-1e999', '1e999+0j'],
  ["'a'", '"a"', "u'a'", "'\\x61'", "'\\N{LATIN SMALL LETTER A}'", "b'a'", "'a' ''", "r'a'", "'A'"],
  ["'é'", "'\\xe9'", "'e\\u0301'", "'\\N{LATIN SMALL LETTER E WITH ACUTE}'"],
  ['None', '...', '()', '[]', '{}', 'set()', "''", "b''"],
];

const equalishPair: fc.Arbitrary<[string, string]> = fc.letrec<{ node: [string, string] }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    {
      weight: 3,
      arbitrary: fc.constantFrom(...GROUPS).chain((g) => fc.tuple(fc.constantFrom(...g), fc.constantFrom(...g))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('list', 'tuple', 'set', 'dict'),
          fc.array(fc.tuple(tie('node'), tie('node')), { maxLength: 4 }),
          fc.nat(9),
          fc.nat(9),
          fc.nat(),
        )
        .map(([kind, elts, fa, fb, rot]): [string, string] => {
          const render = (side: 0 | 1, flip: number, order: number[]) => {
            const k = flip === 0 && (kind === 'list' || kind === 'tuple') ? (kind === 'list' ? 'tuple' : 'list') : kind;
            const parts = order.map((i) =>
              kind === 'dict' ? `${elts[i]![0][side]}: ${elts[i]![1][side]}` : elts[i]![0][side],
            );
            if (k === 'list') return `[${parts.join(', ')}]`;
            if (k === 'tuple') return `(${parts.join(', ')}${parts.length === 1 ? ',' : ''})`;
            return kind === 'set' && parts.length === 0 ? 'set()' : `{${parts.join(', ')}}`;
          };
          const idx = elts.map((_, i) => i);
          const rotated = idx.map((_, i) => idx[(i + rot) % idx.length]!);
          return [render(0, fa, idx), render(1, fb, kind === 'set' || kind === 'dict' ? rotated : idx)];
        }),
    },
  ),
})).node;

void bigintJson;
