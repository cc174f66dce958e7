import { describe, expect, it } from 'vitest';
import { groupTrials, instanceMeans, rateOf, rateOfItems } from './aggregate.ts';

interface Row {
  id: string;
  trial: number;
  x: number;
}

/** Rows of `instances` ids (numbers and words), `trials` each, in a shuffled order, outcomes 0/1 or fractions. */
function rows(instances: number, trials: number, seed: number, binary: boolean): Row[] {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: Row[] = [];
  for (let i = 0; i < instances; i++)
    for (let t = 0; t < trials; t++) {
      const id = i % 3 === 0 ? `case-${i}` : String(i);
      out.push({ id, trial: t, x: binary ? (rand() < 0.6 ? 1 : 0) : Math.round(rand() * 100) / 100 });
    }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('rates straight from the items', () => {
  it('give what grouping the trials first gives: the same means in the same order, the same estimate', () => {
    for (const [instances, trials, binary] of [
      [1, 1, true],
      [40, 1, true],
      [300, 1, true],
      [300, 3, true],
      [200, 2, false],
    ] as const) {
      const items = rows(instances, trials, instances * 7 + trials, binary);
      const key = (r: Row) => r.id;
      const outcome = (r: Row) => r.x;
      const grouped = groupTrials(items, key, outcome);
      const means = [...grouped.values()].map((t) => t.reduce((a, b) => a + b, 0) / t.length);
      expect(instanceMeans(items, key, outcome)).toEqual(means);
      // Already in order (as a finalized run's metas are): the same again.
      const ordered = [...grouped.keys()].flatMap((id) => items.filter((r) => r.id === id));
      expect(instanceMeans(ordered, key, outcome)).toEqual(means);
      expect(rateOfItems(items, key, outcome, 'instances', 7)).toEqual(rateOf(grouped, 'instances', 7));
    }
  });

  it('refuse an outcome outside [0, 1], as averaging the trials does', () => {
    expect(() =>
      instanceMeans(
        [{ id: 'a', trial: 0, x: 2 }],
        (r) => r.id,
        (r) => r.x,
      ),
    ).toThrow(RangeError);
    expect(
      instanceMeans(
        [],
        (r: Row) => r.id,
        (r) => r.x,
      ),
    ).toEqual([]);
  });
});
