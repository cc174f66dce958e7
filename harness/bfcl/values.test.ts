// Lossless JSON (Python's json.loads) and BFCL's Java/JavaScript type converters against the real Python:
// generated JSON texts (ints vs floats, big ints, exponents, escapes, surrogates, NaN/Infinity, duplicate keys,
// near-misses) and generated Java/JavaScript argument strings for every declared type.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeTagged, differs, type Tagged } from '../core/pyliteral/testkit.ts';
import { JAVA_TYPES, javaTypeConverter } from './checker/java.ts';
import { JS_TYPES, jsTypeConverter } from './checker/js.ts';
import { BfclCrash, type PyValue } from './py.ts';
import { pyJsonDumps, pyJsonLoads, PyJsonError } from '../core/pyliteral/pyjson.ts';
import { BfclOracle, hasReference } from './testkit.ts';

const HEAVY = process.env.TOOLGAUGE_BFCL_HEAVY === '1';
const RUNS = HEAVY ? 20_000 : 400;

const started = hasReference() ? await BfclOracle.start() : { skip: 'no ../shared/data/bfcl/reference' };
const oracle = 'skip' in started ? undefined : started;
afterAll(async () => oracle?.close());

type Ref = { ok: true; v: Tagged } | { ok: false; err: string };

function same(ours: () => PyValue, ref: Ref, label: string, isError: (e: unknown) => boolean): void {
  let v: PyValue | undefined;
  try {
    v = ours();
  } catch (err) {
    if (!isError(err)) throw err;
    if (ref.ok) throw new Error(`${label}: we raised ${(err as Error).message}, Python gave ${JSON.stringify(ref.v)}`);
    return;
  }
  if (!ref.ok) throw new Error(`${label}: Python raised ${ref.err}, we gave a value`);
  const d = differs(v, decodeTagged(ref.v));
  if (d) throw new Error(`${label}: ${d}`);
}

const numberText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => String(x)),
  fc.constantFrom(
    '5',
    '5.0',
    '-0',
    '-0.0',
    '1e5',
    '1E-5',
    '1.5e+300',
    '1e400',
    '-1e400',
    '0.1',
    '01',
    '.5',
    '5.',
    'NaN',
    'Infinity',
    '-Infinity',
    '-',
    '1_000',
    '0x10',
    '+1',
  ),
);
const stringText = fc.oneof(
  fc.string({ unit: 'grapheme-composite', maxLength: 8 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(
    '"\\ud83d\\ude00"',
    '"\\ud83d"',
    '"\\ude00\\ud83d"',
    '"\\u00e9"',
    '"\\/"',
    '"\\x"',
    '"a\tb"',
    '"\\u12"',
    '"unterminated',
    "'single'",
  ),
);
const jsonText: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    numberText,
    stringText,
    fc.constantFrom('true', 'false', 'null', 'True', 'none'),
    fc.array(tie('v'), { maxLength: 4 }).map((xs) => `[${xs.join(', ')}]`),
    fc
      .array(fc.tuple(stringText, tie('v')), { maxLength: 4 })
      .map((xs) => `{${xs.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
    tie('v').map((x) => `{"a": ${x}, "a": 1}`),
    tie('v').map((x) => ` \n${x}\t`),
    tie('v').map((x) => `${x},`),
  ),
})).v;

describe.skipIf(!oracle)(
  `lossless JSON and the Java/JavaScript converters agree with Python${oracle ? '' : ' — SKIPPED: no BFCL reference Python'}`,
  () => {
    it(`pyJsonLoads = json.loads on generated JSON text (${RUNS})`, async () => {
      await fc.assert(
        fc.asyncProperty(jsonText, async (text) => {
          const ref = await oracle!.ask<Ref>({ op: 'json', text });
          same(
            () => pyJsonLoads(text),
            ref,
            JSON.stringify(text),
            (e) => e instanceof PyJsonError,
          );
          // What we read, written back, reads the same (the form argumentsJson and initial_config rely on).
          if (ref.ok && !/NaN/.test(text)) {
            const v = pyJsonLoads(text);
            expect(differs(pyJsonLoads(pyJsonDumps(v)), decodeTagged(ref.v))).toBeUndefined();
          }
        }),
        { numRuns: RUNS, seed: 7 },
      );
    });

    const javaValue = fc.oneof(
      fc.constantFrom(
        '5',
        '-5',
        '5L',
        '5l',
        '5.0',
        '5.0f',
        '1e3F',
        '3.14',
        'true',
        'false',
        'True',
        "'a'",
        'abc',
        '',
        ' 5',
        '5\n',
        '٣',
        '5L\n',
      ),
      fc.constantFrom(
        'new int[]{1, 2, 3}',
        'new String[]{a, b}',
        'new int[] { }',
        'new long[]{1L, 2, 3L}',
        'new ArrayList<>(Arrays.asList(1, 2))',
        'new ArrayList<String>(Arrays.asList("a", "b"))',
        'new ArrayList<Integer>() {{ add(1); add(2); }}',
        'new ArrayList<>()',
        'new HashMap<String, Object>() {{ put("k", 1); put("s", "v"); put("b", true); }}',
        'new HashMap<>()',
        'new HashMap<String, String>() {{put("a", "b");}}',
        'Arrays.asList(1, 2)',
        '[1, 2]',
      ),
      fc.string({ maxLength: 12 }),
    );
    const javaType = fc.constantFrom(...Object.keys(JAVA_TYPES), 'Integer');
    const javaNested = fc.option(
      fc.constantFrom('integer', 'long', 'String', 'char', 'any', 'boolean', 'double', 'float', 'Array', 'Object'),
      { nil: undefined },
    );

    it(`javaTypeConverter = java_type_converter (${RUNS})`, async () => {
      await fc.assert(
        fc.asyncProperty(javaValue, javaType, javaNested, async (value, type, nested) => {
          const ref = await oracle!.ask<Ref>({ op: 'java', value, type, nested });
          same(
            () => javaTypeConverter(value, type, nested),
            ref,
            `${type}<${nested}> ${JSON.stringify(value)}`,
            (e) => e instanceof BfclCrash,
          );
        }),
        { numRuns: RUNS, seed: 8 },
      );
    });

    const jsValue = fc.oneof(
      fc.constantFrom(
        '5',
        '-5',
        '5n',
        '5.5',
        '1e3',
        'true',
        'false',
        '"quoted"',
        "'single'",
        'bare',
        '',
        '[1, 2, 3]',
        '["a", "b"]',
        "['a', 'b']",
        '[[1, 2], [3, 4]]',
        'new Array(1, 2)',
        '[]',
        '{}',
        "{'k': 'v'}",
        '{"a": 1, "b": [1, 2], "c": {"d": true}}',
        '{a: 1, b: x}',
        '{"a": "x, y"}',
      ),
      fc.string({ maxLength: 12 }),
    );
    const jsType = fc.constantFrom(...Object.keys(JS_TYPES), 'Number');
    const jsNested = fc.option(
      fc.constantFrom('integer', 'float', 'String', 'Boolean', 'Bigint', 'dict', 'array', 'any', 'Number'),
      { nil: undefined },
    );

    it(`jsTypeConverter = js_type_converter (${RUNS})`, async () => {
      await fc.assert(
        fc.asyncProperty(jsValue, jsType, jsNested, async (value, type, nested) => {
          const ref = await oracle!.ask<Ref>({ op: 'js', value, type, nested });
          same(
            () => jsTypeConverter(value, type, nested),
            ref,
            `${type}<${nested}> ${JSON.stringify(value)}`,
            (e) => e instanceof BfclCrash,
          );
        }),
        { numRuns: RUNS, seed: 9 },
      );
    });
  },
);

describe('lossless JSON without Python', () => {
  it('keeps 5 and 5.0 apart, big ints exact, NaN/Infinity, and the last of duplicate keys in the first place', () => {
    const v = pyJsonLoads('{"a": 5, "b": 5.0, "c": 123456789012345678901234567890, "d": NaN, "a": [Infinity]}');
    expect(v).toEqual({
      t: 'dict',
      entries: [
        [
          { t: 'str', v: 'a' },
          { t: 'list', items: [{ t: 'float', v: Infinity }] },
        ],
        [
          { t: 'str', v: 'b' },
          { t: 'float', v: 5 },
        ],
        [
          { t: 'str', v: 'c' },
          { t: 'int', v: 123456789012345678901234567890n },
        ],
        [
          { t: 'str', v: 'd' },
          { t: 'float', v: NaN },
        ],
      ],
    });
    expect(
      pyJsonDumps({
        t: 'list',
        items: [
          { t: 'int', v: 5n },
          { t: 'float', v: 5 },
          { t: 'float', v: 1e-7 },
        ],
      }),
    ).toBe('[5, 5.0, 1e-07]');
    expect(() => pyJsonLoads('{"a": 1,}')).toThrow(PyJsonError);
    expect(() => pyJsonLoads('[1] x')).toThrow(/Extra data/);
  });
});
