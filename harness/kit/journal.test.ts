import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256, stableStringify } from '../core/hash.ts';
import { clearSecrets, REDACTED, registerSecret } from '../core/redact.ts';
import { valueDigest } from './journal.ts';

afterEach(() => clearSecrets());

describe('valueDigest', () => {
  // The digest of the value as the journal's text stores it: written as JSON, redacted, read back, keys sorted.
  const stored = (v: unknown) =>
    sha256(stableStringify(JSON.parse(JSON.stringify(v).replaceAll('sk-secret-123', REDACTED))));
  const record = fc.dictionary(
    fc.constantFrom('id', 'note', 'x', 'B'),
    fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('sk-secret-123', 'key sk-secret-123 here', undefined, -0)),
  );

  it('is the digest of the stored text, with and without a secret registered', () => {
    fc.assert(
      fc.property(record, fc.boolean(), (v, secret) => {
        clearSecrets();
        if (secret) registerSecret('sk-secret-123');
        const want = secret ? stored(v) : sha256(stableStringify(JSON.parse(JSON.stringify(v))));
        expect(valueDigest(v)).toBe(want);
      }),
    );
  });

  it('gives a value holding a registered secret the digest of its redacted form', () => {
    registerSecret('sk-secret-123');
    expect(valueDigest({ note: 'key sk-secret-123 here' })).toBe(valueDigest({ note: `key ${REDACTED} here` }));
  });
});
