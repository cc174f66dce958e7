import { describe, expect, it } from 'vitest';
import { frameworkAgreement, loadFrameworkCases } from './frameworks.ts';
import { parseToolCalls } from './index.ts';

const cases = loadFrameworkCases();

describe("the frameworks' own tool-parser tests, as fixtures", () => {
  it('are present', () => {
    expect(cases.length).toBeGreaterThan(0);
  });
  for (const fx of cases) {
    const known = fx.case.known_difference;
    it(`${fx.id} ${known ? '(known difference)' : ''} — ${fx.case.source}`, () => {
      const a = frameworkAgreement(fx);
      if (known) {
        // a known difference that no longer differs is a stale mark
        expect(a.agree, `${fx.id} now agrees: drop known_difference`).toBe(false);
        if (fx.case.lenient_agrees) expect(frameworkAgreement(fx, 'lenient').why).toEqual([]);
        if (fx.case.auto_agrees) expect(frameworkAgreement(fx, 'strict', 'auto').why).toEqual([]);
        return;
      }
      expect(a.why).toEqual([]);
      if (fx.case.auto_differs) return;
      // auto-detection finds the same calls as the named family
      const named = parseToolCalls(fx.case.text, { tier: 'strict', format: fx.family, tools: fx.tools });
      const auto = parseToolCalls(fx.case.text, { tier: 'strict', format: 'auto', tools: fx.tools });
      expect(auto.calls).toEqual(named.calls);
    });
  }
});
