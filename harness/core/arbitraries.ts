// fast-check generators of plain data (test support, not shipped): nested arrays and objects over given leaves, for the
// property tests of the copies, digests and comparisons that walk such values.
import fc from 'fast-check';

/**
 * Values nested up to fast-check's small depth: a leaf, an array, a sparse array (with `sparse`), or an object whose
 * keys come from `key`. Objects are built with defineProperty, as JSON.parse builds them, so a `__proto__` key is an
 * own key and not the prototype.
 */
export function nestedValues(
  leaf: fc.Arbitrary<unknown>,
  key: fc.Arbitrary<string>,
  { maxLength, sparse = true }: { maxLength: number; sparse?: boolean },
): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength }),
      ...(sparse ? [fc.sparseArray(tie('value'), { maxLength })] : []),
      fc.array(fc.tuple(key, tie('value')), { maxLength }).map((kv) => {
        const o: Record<string, unknown> = {};
        for (const [k, v] of kv)
          Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        return o;
      }),
    ),
  }));
  return value;
}
