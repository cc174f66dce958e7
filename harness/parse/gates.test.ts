import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callsFor, nearMissArb, textArb, toolsFromCalls } from './arbitraries.ts';
import { loadFixtures } from './fixtures.ts';
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
    if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, `${tier}: ${JSON.stringify(text).slice(0, 300)}`).toEqual(want);
  }
}

/** Damage a rendering the way models and servers do: sloppy marker spacing and case, cuts, prose, doubling. */
const damaged = (family: Family) =>
  fc
    .tuple(callsFor(family), textArb, fc.nat(), fc.constantFrom('clean', 'spaces', 'upper', 'lower', 'cut', 'prose', 'dup', 'think'))
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

  it('on clean and damaged renderings of every family, with and without the calls\' tools', () => {
    fc.assert(
      fc.property(anyFamily.chain((f) => fc.tuple(damaged(f), callsFor(f))), fc.boolean(), ([text, calls], withTools) =>
        same(text, withTools ? { tools: toolsFromCalls(calls) } : {}),
      ),
      { numRuns: 400 },
    );
  });

  it('on every prefix of every family\'s rendering (a cut-off call must be read the same)', () => {
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
    fc.assert(fc.property(nearMissArb, (t) => same(t)), { numRuns: 300 });
  });
});
