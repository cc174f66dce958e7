import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFlags } from './flags.ts';
import { MODEL_FLAGS } from './model-flags.ts';

// `--shard i/n` is parsed once, by its flag: the value every consumer (the shard-count check, Vitest) gets.
describe('--shard', () => {
  const shard = (raw: string) => parseFlags('x', [`--shard=${raw}`], MODEL_FLAGS).values.shard;

  it('i/n with 1 <= i <= n is shard i of n, its text as Vitest takes it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), (i, extra) => {
        const n = i + extra;
        expect(shard(`${i}/${n}`)).toEqual({ index: i, count: n, text: `${i}/${n}` });
      }),
    );
  });

  it('0/n, i/n with i > n and anything not i/n: one line naming the flag and the value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 10_000 }), (n, more) => {
        for (const raw of [`0/${n}`, `${n + more}/${n}`])
          expect(() => shard(raw)).toThrow(`toolgauge x: --shard must be i/n with 1 <= i <= n (got '${raw}')`);
      }),
    );
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^\d+\/\d+$/.test(s)),
        (raw) => {
          expect(() => shard(raw)).toThrow(/^toolgauge x: --shard must be i\/n \(got /);
        },
      ),
    );
  });
});
