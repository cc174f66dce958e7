import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyRepr, pyStr, readPyCall, readPyCallList, readPyValue } from './pycall.ts';

/** Whole-string literal read (strict mode, nothing left over). */
function lit(src: string, mode: 'strict' | 'loose' = 'strict'): { ok: true; value: unknown } | { ok: false } {
  const r = readPyValue(src, 0, mode);
  if (!r.ok) return { ok: false };
  if (src.slice(r.end).trim() !== '') return { ok: false };
  return { ok: true, value: r.value };
}

describe('Python literal reader', () => {
  const good: Array<[string, unknown]> = [
    ["'a\\'b'", "a'b"],
    ['"tab\\there"', 'tab\there'],
    ["r'C:\\new'", 'C:\\new'],
    ["'''multi\nline'''", 'multi\nline'],
    ["'a' \"b\" 'c'", 'abc'],
    ["'\\x41\\u00e9\\U0001F600\\101'", 'Aé😀A'],
    ['1_000', 1000],
    ['0x_ff', 255],
    ['0o17', 15],
    ['0b101', 5],
    ['-2.5e-3', -0.0025],
    ['5.', 5],
    ['.5', 0.5],
    ['[1, [2, {"k": None}], True]', [1, [2, { k: null }], true]],
    ["{'a': 1, 'a': 2}", { a: 2 }],
    ['(1)', 1],
  ];
  for (const [src, value] of good) {
    it(`reads ${src}`, () => {
      const r = lit(src);
      expect(r).toEqual({ ok: true, value });
    });
  }
  const strictBad = [
    '(1, 2)',
    '{1, 2}',
    "b'x'",
    "f'x'",
    '1j',
    '012',
    '1__0',
    'true',
    'null',
    "{1: 'a'}",
    "'\\N{DASH}'",
    "'unterminated",
  ];
  for (const src of strictBad) {
    it(`refuses ${src} in strict mode`, () => expect(lit(src).ok).toBe(false));
  }
  it('loose mode maps tuples, sets and JSON literals', () => {
    expect(lit('(1, 2)', 'loose')).toEqual({ ok: true, value: [1, 2] });
    expect(lit('{1, 2}', 'loose')).toEqual({ ok: true, value: [1, 2] });
    expect(lit('[true, null]', 'loose')).toEqual({ ok: true, value: [true, null] });
    expect(lit("{1: 'a'}", 'loose')).toEqual({ ok: true, value: { '1': 'a' } });
  });
});

describe('Python call reader', () => {
  it('reads keyword calls and lists of calls', () => {
    const r = readPyCallList("[f(a=1, b='x'), g()]", 0, 'strict');
    expect(r.ok && r.calls.map((c) => [c.name, c.kwargs])).toEqual([
      ['f', { a: 1, b: 'x' }],
      ['g', {}],
    ]);
  });
  it('refuses positional arguments, duplicate keywords and keywords as names in strict mode', () => {
    expect(readPyCall("f('x')", 0, 'strict').ok).toBe(false);
    expect(readPyCall('f(a=1, a=2)', 0, 'strict').ok).toBe(false);
    expect(readPyCall('if(a=1)', 0, 'strict').ok).toBe(false);
    expect(readPyCall("f(a=1, 'x')", 0, 'loose').ok).toBe(false);
  });
  it('keeps positional arguments in loose mode', () => {
    const r = readPyCall("f('x', b=2)", 0, 'loose');
    expect(r.ok && [r.call.positional, r.call.kwargs]).toEqual([['x'], { b: 2 }]);
  });
  it('marks truncation', () => {
    expect(readPyCallList("[f(a='x", 0, 'strict')).toMatchObject({ ok: false, truncated: true });
    expect(readPyCall('f(a=[1, 2', 0, 'strict')).toMatchObject({ ok: false, truncated: true });
  });
});

// ---- differential against the real python3 (ast.literal_eval) ----------------------------------------

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'import ast'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const PY = `
import ast, json, sys, warnings
warnings.simplefilter('ignore')
def conv(v):
    if isinstance(v, bool) or v is None or isinstance(v, str): return v
    if isinstance(v, int):
        return float(v) if abs(v) > 2**53 else v  # JS numbers are doubles; compare at that precision
    if isinstance(v, float):
        if v != v or v in (float('inf'), float('-inf')): raise ValueError('nonfinite')
        return v
    if isinstance(v, list): return [conv(x) for x in v]
    if isinstance(v, dict):
        if not all(isinstance(k, str) for k in v): raise ValueError('key')
        return {k: conv(x) for k, x in v.items()}
    raise ValueError(type(v).__name__)
out = []
for line in sys.stdin:
    src = json.loads(line)
    try:
        out.append({'ok': True, 'v': conv(ast.literal_eval(src))})
    except Exception as e:
        out.append({'ok': False})
print(json.dumps(out))
`;

function pythonEval(sources: string[]): Array<{ ok: boolean; v?: unknown }> {
  const input = sources.map((s) => JSON.stringify(s)).join('\n') + '\n';
  return JSON.parse(execFileSync('python3', ['-c', PY], { input, encoding: 'utf8', maxBuffer: 64 << 20 })) as Array<{
    ok: boolean;
    v?: unknown;
  }>;
}

/** Well-formed text (no lone surrogates: CPython cannot compile source that holds one). */
const text = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    fc.constantFrom("'", '"', '\\', '\n', '\r', '\t', '\0', '{', '}', 'é', '😀'),
  ),
  maxLength: 12,
});

function escapeAll(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out +=
      cp < 0x100
        ? `\\x${cp.toString(16).padStart(2, '0')}`
        : cp < 0x10000
          ? `\\u${cp.toString(16).padStart(4, '0')}`
          : `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return out;
}

/** Python literal source in many spellings, all within the strict subset. */
const pySource: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text.map(pyStr),
    text.map((s) => `"${escapeAll(s)}"`),
    text.filter((s) => !/['\\\r\n]/.test(s)).map((s) => `r'${s}'`),
    text
      .filter((s) => !s.includes("'''") && !s.endsWith("'") && !s.includes('\\') && !s.includes('\r'))
      .map((s) => `'''${s}'''`),
    fc.tuple(text, text).map(([a, b]) => `${pyStr(a)} ${pyStr(b)}`),
    fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map(String),
    fc.integer({ min: 0, max: 2 ** 40 }).map((n) => `0x${n.toString(16)}`),
    fc.integer({ min: 0, max: 2 ** 30 }).map((n) => `0o${n.toString(8)}`),
    fc.integer({ min: 0, max: 2 ** 20 }).map((n) => `0b${n.toString(2)}`),
    fc.integer({ min: 1000, max: 10 ** 9 }).map((n) => String(n).replace(/(\d)(?=(\d{3})+$)/g, '$1_')),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? '0.0' : String(d))),
    fc.constantFrom('True', 'False', 'None', '5.', '.5', '1e3', '- 7', '-0x10', '1_0.0_1', '0_0'),
    fc.array(tie('v'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc
      .array(fc.tuple(text.map(pyStr), tie('v')), { maxLength: 3 })
      .map((kv) => `{${kv.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
  ),
})).v;

describe.skipIf(!hasPython())('Python literal reader vs python3 ast.literal_eval (needs python3)', () => {
  it('agrees on generated literals in every spelling', () => {
    const sources = fc.sample(pySource, { numRuns: 1500, seed: 20240611 });
    const py = pythonEval(sources);
    sources.forEach((src, i) => {
      const mine = lit(src);
      const ref = py[i]!;
      expect({ src, ok: mine.ok }).toEqual({ src, ok: ref.ok });
      if (mine.ok && ref.ok) expect(mine.value, src).toEqual(ref.v);
    });
  });

  it('never accepts what Python refuses, nor reads it differently (arbitrary text)', () => {
    const junk = fc.string({
      unit: fc.constantFrom(
        "'",
        '"',
        '\\',
        'x',
        'u',
        'N',
        '{',
        '}',
        '[',
        ']',
        '(',
        ')',
        ',',
        ':',
        '1',
        '0',
        '_',
        '.',
        'e',
        '-',
        ' ',
        'r',
        'b',
        'j',
        'True',
        'None',
        '\n',
      ),
      maxLength: 16,
    });
    const sources = fc.sample(junk, { numRuns: 3000, seed: 7 });
    const py = pythonEval(sources);
    sources.forEach((src, i) => {
      const mine = lit(src);
      if (mine.ok) expect({ src, v: mine.value }).toEqual({ src, v: py[i]!.ok ? py[i]!.v : 'python refused' });
    });
  });

  it('renders values that Python reads back identically (pyRepr)', () => {
    const values = fc.sample(
      fc.letrec<{ v: unknown }>((tie) => ({
        v: fc.oneof(
          { depthSize: 'small' },
          text,
          fc.integer(),
          fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
          fc.boolean(),
          fc.constant(null),
          fc.array(tie('v'), { maxLength: 3 }),
          fc.dictionary(text, tie('v'), { maxKeys: 3 }),
        ),
      })).v,
      { numRuns: 500, seed: 99 },
    );
    const py = pythonEval(values.map(pyRepr));
    values.forEach((v, i) => expect(py[i]).toEqual({ ok: true, v }));
  });
});
