import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { artifactName, printableId } from './names.ts';

describe('file names from instance ids', () => {
  it('are short, safe and distinct whatever the id (length, slashes, control characters)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 }), fc.nat(3), (a, b, t) => {
        const na = artifactName(a, t);
        expect(na.length).toBeLessThan(80);
        expect(na).toMatch(/^[A-Za-z0-9._+-]+$/);
        if (a !== b) expect(na).not.toBe(artifactName(b, t));
      }),
      { numRuns: 300 },
    );
    expect(artifactName('a/b', 0)).not.toBe(artifactName('a_b', 0));
    expect(artifactName('x'.repeat(300), 0).length).toBeLessThan(80);
  });

  it('test names show control characters as escapes, on one line', () => {
    expect(printableId('a\r\nb\u0000')).toBe('a\\x0d\\x0ab\\x00');
  });
});
