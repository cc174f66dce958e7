import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callsFor, nearMissArb, textArb, toolsFromCalls } from './arbitraries.ts';
import { loadFixtures } from './fixtures.ts';
import { FAMILY_BIT, STRICT_GATES, STRICT_KEYS, strictGateMask } from './families/registry.ts';
import { FAMILIES, parseLooseGated, parseToolCalls, renderToolCalls, type Family, type ParseOptions } from './index.ts';

// `format: 'auto'` skips a family whose gate (families/registry.ts) fails. The gates are an optimisation only: the
// oracle is the same parse with the strict pass gated by the loose gates only (`parseLooseGated`), which must give the identical result — calls,
// content, notes, attempted, truncated — on every input, in both tiers, with and without tools.

const TIERS = ['strict', 'lenient'] as const;

function same(text: string, opts: ParseOptions = {}) {
  for (const tier of TIERS) {
    const o = { ...opts, tier };
    const [got, want] = [parseToolCalls(text, o), parseLooseGated(text, o)];
    // (a cheap comparison first: the prefix test makes tens of thousands of them)
    if (JSON.stringify(got) !== JSON.stringify(want))
      expect(got, `${tier}: ${JSON.stringify(text).slice(0, 300)}`).toEqual(want);
  }
}

/** Damage a rendering the way models and servers do: sloppy marker spacing and case, cuts, prose, doubling. */
const damaged = (family: Family) =>
  fc
    .tuple(
      callsFor(family),
      textArb,
      fc.nat(),
      fc.constantFrom('clean', 'spaces', 'upper', 'lower', 'cut', 'prose', 'dup', 'think'),
    )
    .map(([calls, prose, k, how]) => {
      const t = renderToolCalls(calls, family);
      switch (how) {
        case 'spaces':
          return t.replace(/<\|?/g, (m) => `${m} `).replace(/\|?>/g, (m) => ` ${m}`);
        case 'upper':
          return t.toUpperCase();
        case 'lower':
          return t.toLowerCase();
        case 'cut':
          return t.slice(0, t.length === 0 ? 0 : k % t.length);
        case 'prose':
          return `${prose}\n${t}\n${prose}`;
        case 'dup':
          return t + t;
        case 'think':
          return `<think>${t}</think>${prose}`;
        default:
          return t;
      }
    });

const anyFamily = fc.constantFrom(...FAMILIES);

describe('family gates never change a parse (format auto vs every family run)', () => {
  it('on every fixture', () => {
    for (const f of loadFixtures()) same(f.text);
  });

  it("on clean and damaged renderings of every family, with and without the calls' tools", () => {
    fc.assert(
      fc.property(
        anyFamily.chain((f) => fc.tuple(damaged(f), callsFor(f))),
        fc.boolean(),
        ([text, calls], withTools) => same(text, withTools ? { tools: toolsFromCalls(calls) } : {}),
      ),
      { numRuns: 400 },
    );
  });

  it("on every prefix of every family's rendering (a cut-off call must be read the same)", () => {
    const calls = [
      { name: 'f', arguments: {} },
      { name: 'get_weather', arguments: { a: [1, 'x'], b: { c: null } } },
    ];
    for (const family of FAMILIES) {
      const t = renderToolCalls(calls, family);
      for (let i = 0; i <= t.length; i++) same(t.slice(0, i));
    }
  });

  it('on two families in one output, and on near-miss marker soup', () => {
    fc.assert(
      fc.property(anyFamily.chain(damaged), anyFamily.chain(damaged), (a, b) => same(`${a}\n${b}`)),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(nearMissArb, (t) => same(t)),
      { numRuns: 300 },
    );
  });
});

// The strict pass tests a family's gate only when one scan found one of the family's keys (families/registry.ts
// STRICT_KEYS): that prefilter must never hide a gate that passes. The oracle is the gates themselves, on text made of
// every strict marker (whole, cut, joined so that one marker's end runs into the next one's start) and the fixtures.
const STRICT_MARKERS = [
  '<tool_call>',
  '<function',
  '[TOOL_CALLS]',
  'tool_call',
  '<|tool_call>',
  'tool▁call',
  '>>>',
  'function',
  '<|channel|>',
  'functions.',
  '<|tool_call',
  'DSML',
  'invoke',
  '<seed:tool_call>',
  '<|tool_call_start|>',
  '<|tools_prefix|>',
  '<|START_ACTION|>',
  'Action:',
  '<TOOLCALL>',
  'functools',
  '<|/tool_call|>',
  '<tool_calls>',
  '<|action_start|>',
];
const markerSoup = fc
  .array(
    fc.oneof(
      fc.constantFrom(...STRICT_MARKERS),
      fc
        .tuple(fc.constantFrom(...STRICT_MARKERS), fc.nat(), fc.boolean())
        .map(([m, k, head]) => (head ? m.slice(0, k % m.length) : m.slice(k % m.length))),
      fc.constantFrom('<', '|', '>', '[', ']', '{', '(', ':', '_', 's', '.', ' ', '\n', 'x'),
    ),
    { maxLength: 12 },
  )
  .map((xs) => xs.join(''));

function gatesKept(text: string) {
  const mask = strictGateMask(text);
  for (const f of FAMILIES)
    if (STRICT_GATES[f](text)) expect((mask & FAMILY_BIT[f]) !== 0, `${f} on ${JSON.stringify(text)}`).toBe(true);
}

describe('the one-scan prefilter of the strict gates', () => {
  it('keeps every family whose strict gate passes (fixtures and marker soup)', () => {
    for (const f of loadFixtures()) gatesKept(f.text);
    fc.assert(
      fc.property(markerSoup, (t) => gatesKept(t)),
      { numRuns: 3000 },
    );
  });

  it('scans keys that neither contain nor overlap one another (so no occurrence is hidden by another match)', () => {
    const keys = [...new Set(FAMILIES.flatMap((f) => STRICT_KEYS[f] ?? []))];
    for (const a of keys)
      for (const b of keys) {
        if (a === b) continue;
        expect(a.includes(b), `${a} contains ${b}`).toBe(false);
        for (let k = 1; k < Math.min(a.length, b.length); k++)
          expect(a.endsWith(b.slice(0, k)), `${a} ends with the start of ${b}`).toBe(false);
      }
  });
});
