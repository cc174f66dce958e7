import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../../parse/index.ts';
import { BatchLine, plainBatchLine } from './parse.ts';

describe('the batch line check that spares zod', () => {
  it('accepts only what BatchLine accepts, with the same data (JSON values, near-miss shapes)', () => {
    const id = fc.oneof(fc.string(), fc.double(), fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.nat()));
    const format = fc.oneof(fc.constantFrom('auto', 'nope', 'Hermes', '', ...FAMILIES), fc.constant(null), fc.nat());
    const line = fc.oneof(
      fc.jsonValue(),
      fc.record(
        { id, output: fc.oneof(fc.string(), fc.nat(), fc.constant(null)), format, extra: fc.jsonValue() },
        { requiredKeys: [] },
      ),
      fc.array(fc.string()),
    );
    fc.assert(
      fc.property(line, (raw) => {
        const fast = plainBatchLine(raw);
        const z = BatchLine.safeParse(raw);
        if (fast !== null) {
          expect(z.success).toBe(true);
          expect(fast).toStrictEqual(z.data);
        }
        // a line the zod schema accepts with the usual shape is taken by the check too (zod is the error path)
        if (z.success) expect(fast).not.toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});
