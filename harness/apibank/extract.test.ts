// The reply reader: properties whose expected values come from the generator (never from the code under test).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyRepr, type PyValue } from '../core/pyliteral/index.ts';
import { PY_KEYWORDS } from '../core/pyliteral/keywords.ts';
import { callCandidates, extractApiCall, parseApiCall } from './extract.ts';

const name = fc.stringMatching(/^[A-Z][A-Za-z0-9]{0,10}$/);
const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/).filter((k) => !PY_KEYWORDS.has(k));
// A value and its Python source: text without quotes or backslashes, ints, bools, None.
const val: fc.Arbitrary<{ src: string; v: PyValue }> = fc.oneof(
  fc
    .stringMatching(/^[A-Za-z0-9 :,.!?@-]{0,20}$/)
    .filter((s) => !/^[[{(]/.test(s))
    .chain((s) =>
      fc.constantFrom(
        { src: `'${s}'`, v: { t: 'str', v: s } as PyValue },
        { src: `"${s}"`, v: { t: 'str', v: s } as PyValue },
      ),
    ),
  fc.integer({ min: -1e6, max: 1e6 }).map((n) => ({ src: String(n), v: { t: 'int', v: BigInt(n) } as PyValue })),
  fc.boolean().map((b) => ({ src: b ? 'True' : 'False', v: { t: 'bool', v: b } as PyValue })),
  fc.constant({ src: 'None', v: { t: 'none' } as PyValue }),
);
const call = fc
  .tuple(
    name,
    fc.uniqueArray(fc.tuple(key, val), { selector: ([k]) => k, maxLength: 4 }),
    fc.constantFrom(', ', ',', ' ,  '),
  )
  .map(([n, args, sep]) => ({
    name: n,
    args: args.map(([k, x]) => [k, x.v] as [string, PyValue]),
    text: `[${n}(${args.map(([k, x]) => `${k}=${x.src}`).join(sep)})]`,
  }));
const prose = fc.stringMatching(/^[A-Za-z0-9 .,:!\n]{0,40}$/);
const show = (args: Array<[string, PyValue]>) => args.map(([k, v]) => `${k}=${pyRepr(v)}`);

describe("API-Bank reply reading (the reference's extract_api_call / parse_api_call)", () => {
  it('reads a keyword call inside prose: its name and arguments in order, values by Python literal rules', () => {
    fc.assert(
      fc.property(prose, call, prose, (before, c, after) => {
        const p = parseApiCall(`${before}${c.text}${after}`);
        expect(p.name).toBe(c.name);
        expect(show(p.params)).toEqual(show(c.args));
      }),
      { numRuns: 300 },
    );
  });

  it('with several parseable calls the last wins; an unparseable call after a good one does not', () => {
    fc.assert(
      fc.property(call, call, prose, (a, b, mid) => {
        expect(parseApiCall(`${a.text}${mid}${b.text}`).name).toBe(b.name);
        expect(extractApiCall(`${a.text}${mid}[Broken(oops, 1)] [Y(a=1 +)]`)).toBe(a.text);
      }),
      { numRuns: 150 },
    );
  });

  it('without a bracketed call the whole reply (stripped) is the answer, and parsing fails', () => {
    fc.assert(
      fc.property(prose, (text) => {
        expect(extractApiCall(`  ${text}\n`)).toBe(text.trim());
        expect(() => parseApiCall(text)).toThrow('no [ApiName(...)] call found');
      }),
      { numRuns: 100 },
    );
  });

  it('balances quotes and brackets: a "]" or ")" inside a string does not end the call', () => {
    expect(callCandidates(`x [A(q='a)] b', r=[1, (2)])] y`)).toEqual([`[A(q='a)] b', r=[1, (2)])]`]);
    expect(parseApiCall(`[Send(text="he said \\"hi\\" ]")]`).params).toEqual([
      ['text', { t: 'str', v: 'he said "hi" ]' }],
    ]);
  });

  it('a bare identifier is its name; a string that reads as a list/dict/tuple becomes one; others stay strings', () => {
    const p = parseApiCall(`[A(token=abc123, when=null, xs='[1, "b"]', d="{'k': 2}", bad='[oops', t='(1,)')]`);
    expect(show(p.params)).toEqual([
      `token='abc123'`,
      `when='null'`,
      `xs=[1, 'b']`,
      `d={'k': 2}`,
      `bad='[oops'`,
      `t=(1,)`,
    ]);
  });

  it('refuses positional arguments, **kwargs and expressions that are not literals', () => {
    // The only candidate is unparseable, so it is still the one read, and it fails with the reference's message.
    expect(() => parseApiCall(`[A('x', b=1)]`)).toThrow('API call must use keyword arguments only');
    expect(() => parseApiCall(`[A(**kw)]`)).toThrow('**kwargs are not supported');
    expect(() => parseApiCall(`[A(b=f(1))]`)).toThrow('unsupported argument expression');
    expect(() => parseApiCall(`[A(b=1 +)]`)).toThrow('invalid API call syntax');
    expect(parseApiCall('[GetToday()]')).toEqual({ name: 'GetToday', params: [] });
  });
});
