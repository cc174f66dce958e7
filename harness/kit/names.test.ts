import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeTerminal } from '../core/terminal.ts';
import { runs } from '../core/testkit.ts';
import { artifactName, printableId } from './names.ts';

describe('file names from instance ids', () => {
  it('are short, safe and distinct whatever the id (length, slashes, control characters)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.nat(3),
        (a, b, t) => {
          const na = artifactName(a, t);
          expect(na.length).toBeLessThan(80);
          expect(na).toMatch(/^[A-Za-z0-9._+-]+$/);
          if (a !== b) expect(na).not.toBe(artifactName(b, t));
        },
      ),
      { numRuns: 300 },
    );
    expect(artifactName('a/b', 0)).not.toBe(artifactName('a_b', 0));
    expect(artifactName('x'.repeat(300), 0).length).toBeLessThan(80);
  });

  it('test names show control characters as escapes, on one line', () => {
    expect(printableId('a\r\nb\u0000')).toBe('a\\x0d\\x0ab\\x00');
  });

  it('test names and printed text show C0/C1 controls and bidi overrides as escapes, whatever the text', () => {
    const unsafe = (cp: number) =>
      cp <= 0x1f ||
      (cp >= 0x7f && cp <= 0x9f) ||
      (cp >= 0x202a && cp <= 0x202e) ||
      (cp >= 0x2066 && cp <= 0x2069) ||
      [0x061c, 0x200e, 0x200f, 0x2028, 0x2029].includes(cp);
    const special = fc.constantFrom(
      '\x1b',
      '\x9b',
      '\x85',
      '\x80',
      '\x9f',
      '\u202a',
      '\u202e',
      '\u2066',
      '\u2069',
      '\u200f',
      'a',
      'é',
      '\u00a0',
      '[31m',
    );
    const text = fc
      .array(fc.oneof(special, fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 12 })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(text, (s) => {
        for (const out of [printableId(s), escapeTerminal(s, '\n')]) {
          expect([...out].filter((c) => unsafe(c.codePointAt(0)!) && c !== '\n')).toEqual([]);
        }
        if (![...s].some((c) => unsafe(c.codePointAt(0)!))) expect(printableId(s)).toBe(s);
      }),
      { numRuns: runs(300) },
    );
    expect(printableId('a\x9b31mb\u202ec\u2067')).toBe('a\\x9b31mb\\u202ec\\u2067');
    expect(escapeTerminal('x\ny\x1b', '\n')).toBe('x\ny\\x1b');
    // Bidi marks (they too move neutral characters around) and the line and paragraph separators.
    expect(printableId('a\u200fb\u061cc\u200ed\u2028e\u2029')).toBe('a\\u200fb\\u061cc\\u200ed\\u2028e\\u2029');
  });
});
