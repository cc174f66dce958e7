import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { capStrings, capText } from './cap.ts';
import { clearSecrets, redactDeep, registerSecret } from './redact.ts';

// The oracle: a secret's first 8 characters. Any longer beginning contains them, so their absence means no
// beginning of 8 or more characters survived anywhere. Secrets are `sk-` and letters or digits, the text around
// them is drawn from other characters, so the only place a beginning can come from is the planted secret.
const secret = fc
  .string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    minLength: 9,
    maxLength: 40,
  })
  .map((s) => `sk-${s}`);
const filler = fc.string({
  unit: fc.constantFrom(' ', '.', ',', '"', '{', '}', ':', '\n', 'é', '→', '#'),
  maxLength: 60,
});
const leaks = (out: string, s: string) => out.includes(s.slice(0, 8));

beforeEach(() => clearSecrets());
afterEach(() => clearSecrets());

describe('redaction before the cut', () => {
  it('a secret straddling the cut leaves no beginning of 8+ characters, wherever the cut falls in it', () => {
    fc.assert(
      fc.property(secret, filler, filler, fc.nat(), fc.integer({ min: 0, max: 3 }), (s, before, after, at, repeat) => {
        clearSecrets();
        registerSecret(s);
        const text = before + s.repeat(repeat + 1) + after;
        // Cuts inside the (last) secret, and anywhere else.
        const start = before.length + repeat * s.length;
        for (const max of [start + (at % (s.length + 1)), at % (text.length + 2), start + s.length - 1]) {
          const out = capText(text, max);
          expect(leaks(out, s), `cut at ${max} of ${JSON.stringify(text)}: ${JSON.stringify(out)}`).toBe(false);
        }
      }),
    );
  });

  it('every string field and key is redacted before it is cut (ids, finish_reason, nested values)', () => {
    fc.assert(
      fc.property(secret, filler, fc.integer({ min: 1, max: 30 }), (s, pad, k) => {
        clearSecrets();
        registerSecret(s);
        const across = pad + s + pad;
        const max = pad.length + Math.min(k, s.length - 1);
        const value = {
          id: across,
          finish_reason: s,
          tool_calls: [{ id: across, function: { name: s, arguments: across } }],
          [s]: 1,
        };
        const out = JSON.stringify(capStrings(value, max));
        expect(leaks(out, s), out).toBe(false);
        expect(leaks(JSON.stringify(redactDeep(value)), s)).toBe(false);
      }),
    );
  });

  it('a beginning of 8+ characters that ends at the cut is masked, a shorter one is ordinary text', () => {
    registerSecret('sk-abcdefghijklmnop');
    expect(capText('see sk-abcd and more', 11)).toBe('see sk-abcd… [truncated: 20 characters]');
    expect(capText('xxxxxsk-abcdefghij-other', 18)).toBe('xxxxx[REDACTED]… [truncated: 24 characters]');
    expect(capText('xxxxxsk-abcdefghij-other', 15)).toBe('xxxxx[REDACTED]… [truncated: 24 characters]');
    expect(capText('xxxxxsk-abcdefghij-other', 12)).toBe('xxxxxsk-abcd… [truncated: 24 characters]');
  });
});
