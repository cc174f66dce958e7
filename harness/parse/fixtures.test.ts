import { describe, expect, it } from 'vitest';
import { loadFixtures, KINDS, type Fixture } from './fixtures.ts';
import { FAMILIES, parseToolCalls, type Family } from './index.ts';

const fixtures = loadFixtures();

function check(fx: Fixture, format: 'auto' | Family): void {
  const tools = fx.tools;
  const strict = parseToolCalls(fx.text, { tier: 'strict', format, tools });
  const lenient = parseToolCalls(fx.text, { tier: 'lenient', format, tools });
  const override = format === 'auto' && typeof fx.exp.auto === 'object' ? fx.exp.auto : undefined;
  const recover = override?.recover ?? fx.exp.recover;
  const wantFormat = override?.format ?? fx.exp.format;
  const calls = override?.calls ?? fx.exp.calls;
  if (recover === 'strict') {
    expect(strict.tier).toBe('strict');
    expect(strict.format).toBe(wantFormat);
    expect(strict.calls).toEqual(calls);
    expect(strict.attempted).toBe(true);
    expect(lenient.calls).toEqual(fx.exp.lenient_calls ?? calls);
    expect(lenient.tier).toBe(fx.exp.lenient_tier ?? 'strict');
  } else if (recover === 'lenient') {
    expect(strict.tier, 'strict must not recover a lenient-only fixture').toBe('none');
    expect(strict.calls).toEqual([]);
    expect(strict.attempted).toBe(true);
    expect(lenient.tier).toBe('lenient');
    expect(lenient.format).toBe(wantFormat);
    expect(lenient.calls).toEqual(calls);
  } else {
    for (const r of [strict, lenient]) {
      expect(r.tier).toBe('none');
      expect(r.format).toBeNull();
      expect(r.calls).toEqual([]);
    }
  }
  if (!override) for (const note of fx.exp.notes ?? []) expect(lenient.notes).toContain(note);
  if (fx.exp.truncated !== undefined) {
    expect(lenient.truncated).toBe(fx.exp.truncated);
    if (recover !== 'strict') expect(strict.truncated).toBe(fx.exp.truncated);
  }
  if (fx.exp.attempted !== undefined) {
    expect(strict.attempted).toBe(fx.exp.attempted);
    expect(lenient.attempted).toBe(fx.exp.attempted);
  }
  // content and reasoning are the same whichever tier found the calls
  if (fx.exp.content !== undefined) {
    expect(lenient.content).toBe(fx.exp.content);
    if (recover === 'strict') expect(strict.content).toBe(fx.exp.content);
  }
  if (fx.exp.reasoning !== undefined) {
    expect(lenient.reasoning).toBe(fx.exp.reasoning);
    expect(strict.reasoning).toBe(fx.exp.reasoning);
  }
  if (fx.exp.rejected !== undefined) expect(lenient.rejected).toEqual(fx.exp.rejected);
}

describe('parse fixtures', () => {
  it('cover every family with strict, lenient and truncated cases', () => {
    for (const f of FAMILIES) {
      const mine = fixtures.filter((x) => x.family === f);
      expect(
        mine.some((x) => x.exp.recover === 'strict'),
        `${f}: a strict fixture`,
      ).toBe(true);
      expect(
        mine.some((x) => x.exp.recover === 'lenient'),
        `${f}: a lenient fixture`,
      ).toBe(true);
      expect(
        mine.some((x) => x.exp.recover === 'none' && x.exp.truncated),
        `${f}: a truncated fixture`,
      ).toBe(true);
    }
  });

  it('cover every family with single, parallel, nested/array, content, reasoning and malformed cases', () => {
    for (const f of FAMILIES) {
      const kinds = new Set(fixtures.filter((x) => x.family === f).flatMap((x) => x.exp.kinds ?? []));
      for (const k of KINDS) expect(kinds.has(k), `${f}: a '${k}' fixture`).toBe(true);
    }
  });

  it('pin down every class of disagreement with the frameworks found so far, each with a fixture', () => {
    const classes = [
      /pythonic call list dropped every call when one was bad/,
      /first call missing its <tool_call> opener/,
      /union types and the non-standard "float"/,
      /markup inside reasoning was returned as a call/,
      /Granite 3\.1's <tool_call> prefix/,
      /Granite 4's stringified arguments/,
      /Mistral v11 text without \[ARGS\]/,
      /Llama-3 JSON with an `arguments` key/,
      /Llama-3 JSON with prose around it/,
      /Qwen3-Coder output without its opening tag/,
      /functionary v3\.2 output under auto lost calls/,
      /Kimi-K2 call with a malformed id dropped every call/,
      /Hermes block whose complete JSON ends the text/,
      /MiniMax-M3 namespaced nested-element calls were not read/,
    ];
    const fixes = fixtures.map((f) => f.exp.fixes ?? '');
    for (const c of classes)
      expect(
        fixes.some((x) => c.test(x)),
        String(c),
      ).toBe(true);
  });

  it('say why auto detection differs wherever it does', () => {
    for (const fx of fixtures)
      if (typeof fx.exp.auto === 'object') expect(fx.exp.auto.reason.length, fx.id).toBeGreaterThan(10);
  });

  for (const fx of fixtures) {
    const formats: Array<'auto' | Family> = [];
    if (fx.family) formats.push(fx.family);
    if (fx.exp.auto !== false) formats.push('auto');
    for (const format of formats) {
      it(`${fx.id} [${format}] (${fx.exp.recover})`, () => check(fx, format));
    }
  }
});
