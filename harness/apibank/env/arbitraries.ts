// fast-check generators for the differential tests: random Python values in a call's arguments.
import fc from 'fast-check';
import type { PyValue } from '../../core/pyliteral/index.ts';
import type { ApiBankTask } from './index.ts';
import { normalizeParams, normalizeValue } from './normalize.ts';
import { callText, type CallCase } from './variants.ts';

const S = (v: string): PyValue => ({ t: 'str', v });
const I = (v: number | bigint): PyValue => ({ t: 'int', v: BigInt(v) });
const F = (v: number): PyValue => ({ t: 'float', v });
const NONE: PyValue = { t: 'none' };

/** Python values of every kind a model might put in an argument (no NaN/inf: repr would not read back). */
export function pyValueArb(): fc.Arbitrary<PyValue> {
  const str = fc
    .string({ unit: 'binary', maxLength: 12 })
    .filter((s) => !s.includes('['))
    .map(S);
  const leaf = fc.oneof(
    str,
    fc
      .constantFrom('2023-03-18 14:00:00', '2023-3-8', ' UNKNOWN ', 'JohnDoe', 'a9s8d7f6g5h4j3k2l1', 'True', '12', '-3')
      .map(S),
    fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(I),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(F),
    fc.boolean().map((v): PyValue => ({ t: 'bool', v })),
    fc.constant(NONE),
  );
  return fc.oneof(
    { weight: 4, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }).map((items): PyValue => ({ t: 'list', items })) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom('name', 'value', 'description', 'x'), leaf), { maxLength: 3 })
        .map((es): PyValue => ({ t: 'dict', entries: [...new Map(es).entries()].map(([k, v]) => [S(k), v]) })),
    },
  );
}

/**
 * `n` calls with one or two arguments replaced by random Python values (seeded, so a run repeats). Calculator
 * formulas with a '-' are left out: the reference never returns on some of them.
 */
export function randomCases(task: ApiBankTask, seed: number, n: number): CallCase[] {
  const name = task.ground_truth.api_name;
  const gold = normalizeParams(task.ground_truth.param_dict).map(
    ([k, v]) => [k, normalizeValue(v)] as [string, PyValue],
  );
  if (gold.length === 0) return [];
  const arb = fc.tuple(fc.nat(gold.length - 1), pyValueArb(), fc.nat(gold.length - 1), pyValueArb(), fc.boolean());
  return fc.sample(arb, { seed, numRuns: n }).flatMap(([i, v, j, w, two], k) => {
    const args = gold.map(([kk, vv], m) => [kk, m === i ? v : two && m === j ? w : vv] as [string, PyValue]);
    if (name === 'Calculator' && args.some(([, x]) => x.t === 'str' && x.v.includes('-'))) return [];
    return [
      {
        label: `random-${k}`,
        text: callText(name, args),
        call: { name, args: Object.fromEntries(args.map(([kk, x]) => [kk, normalizeValue(x)])) },
      },
    ];
  });
}
