// Call strings as data: BFCL's textual rewrite (checked against Python's own `re.sub`), literal arguments kept
// exactly, and everything that is not a documented call answered without running anything.
import { execa } from 'execa';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyRepr, type PyValue } from '../core/pyliteral/index.ts';
import { encodeValue, prefixMethods, prepareCall, type CallScope } from './call-data.ts';

const methodToVar = new Map([
  ['cd', 'm_GorillaFileSystem_instance'],
  ['ls', 'm_GorillaFileSystem_instance'],
  ['post', 'm_TwitterAPI_instance'],
]);
const scope: CallScope = { methodToVar, allowed: new Set(['cd', 'post']) };

// Tokens that stress `\b`, `\w` and `\s` in Python's Unicode sense: letters and digits beyond ASCII, separators
// JavaScript and Python disagree on, a combining mark, an astral character.
const TOKENS = [
  'cd',
  'ls',
  'post',
  'x',
  '_',
  '1',
  'é',
  'ß',
  '一',
  '٣',
  '²',
  '\u0301',
  '😀',
  ' ',
  '\t',
  '\x1c',
  '\x85',
  '\u00a0',
  '\ufeff',
  '\u2028',
  '(',
  ')',
  "'",
  '"',
  '.',
  '=',
  ',',
  '\\',
];

describe("prefixMethods is BFCL's re.sub", () => {
  it('agrees with CPython on generated strings', async () => {
    const samples = fc.sample(
      fc.array(fc.constantFrom(...TOKENS), { maxLength: 14 }).map((t) => t.join('')),
      { numRuns: 1500, seed: 21 },
    );
    const script = [
      'import json, re, sys',
      'm = json.loads(sys.argv[1])',
      'def repl(x):',
      '    n = x.group(1)',
      '    return f"{m[n]}.{n}" if n in m else n',
      'for line in sys.stdin:',
      '    print(json.dumps(re.sub(r"\\b([a-zA-Z_]\\w*)\\s*(?=\\()", repl, json.loads(line))))',
    ].join('\n');
    const python = process.env.TOOLGAUGE_PYTHON || '/usr/bin/python3';
    const r = await execa(python, ['-c', script, JSON.stringify(Object.fromEntries(methodToVar))], {
      input: samples.map((s) => JSON.stringify(s)).join('\n') + '\n',
    });
    const expected = r.stdout.split('\n').map((l) => JSON.parse(l) as string);
    samples.forEach((s, i) => expect(prefixMethods(s, methodToVar), JSON.stringify(s)).toBe(expected[i]));
  });

  it('rewrites method names in string contents too, and drops the whitespace before "("', () => {
    expect(prefixMethods("cd (folder='ls(x)', y='ls (z)')", methodToVar)).toBe(
      "m_GorillaFileSystem_instance.cd(folder='m_GorillaFileSystem_instance.ls(x)', y='m_GorillaFileSystem_instance.ls(z)')",
    );
  });
});

const literal: fc.Arbitrary<PyValue> = fc.letrec<{ v: PyValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<PyValue>({ t: 'none' }),
    fc.boolean().map((v): PyValue => ({ t: 'bool', v })),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((v): PyValue => ({ t: 'int', v })),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((v): PyValue => ({ t: 'float', v })),
    fc.string({ unit: 'grapheme', maxLength: 12 }).map((v): PyValue => ({ t: 'str', v })),
    fc.array(tie('v'), { maxLength: 3 }).map((items): PyValue => ({ t: 'list', items })),
    fc.array(tie('v'), { maxLength: 3 }).map((items): PyValue => ({ t: 'tuple', items })),
    fc
      .array(fc.tuple(fc.string({ maxLength: 5 }), tie('v')), { maxLength: 3 })
      .map((es): PyValue => ({ t: 'dict', entries: es.map(([k, x]): [PyValue, PyValue] => [{ t: 'str', v: k }, x]) })),
  ),
})).v;

describe('prepareCall', () => {
  it('a documented call with literal arguments (as decode_execute writes them) reaches the worker as the same values', () => {
    fc.assert(
      fc.property(fc.array(literal, { maxLength: 3 }), (values) => {
        const src = `post(${values.map((v, i) => `a${i}=${pyRepr(v)}`).join(',')})`;
        const p = prepareCall(src, scope);
        expect(p).toEqual({
          call: { name: 'post', args: [], kwargs: values.map((v, i) => [`a${i}`, encodeValue(v)]) },
        });
      }),
      { numRuns: 300, seed: 8 },
    );
  });

  it('positional arguments stay positional', () => {
    expect(prepareCall("cd('docs', 2)", scope)).toEqual({
      call: {
        name: 'cd',
        args: [
          ['s', 'docs'],
          ['i', '2'],
        ],
        kwargs: [],
      },
    });
  });

  it('answers without running: refused names, unknown and undocumented functions, code, non-literal arguments', () => {
    const result = (s: string) => {
      const p = prepareCall(s, scope);
      expect('result' in p, s).toBe(true);
      return 'result' in p ? p.result : '';
    };
    expect(result('exit()')).toBe('Error during execution: Function call exit is not allowed.');
    expect(result("open(file='/tmp/x', mode='w')")).toBe("Error during execution: name 'open' is not defined");
    expect(result('cd(folder=inf)')).toBe("Error during execution: name 'inf' is not defined");
    expect(result('cd(folder=-inf)')).toBe("Error during execution: name 'inf' is not defined");
    expect(result('ls(a=1)')).toMatch(/^Error during execution: "ls" is not one of this case's functions/);
    expect(result("__import__('os').system('id') or print()")).toMatch(
      /^Error during execution: .* is not one of this case's functions/,
    );
    expect(result("(lambda g={}: exec('x=1', g) or 'ok')()")).toMatch(
      /^Error during execution: .* is not one of this case's functions/,
    );
    expect(result("cd(folder=exec('import os'))")).toMatch(
      /^Error during execution: .* is not one of this case's functions/,
    );
    expect(result('cd(**{"folder": 1})')).toMatch(/^Error during execution: .* is not one of this case's functions/);
    expect(result('my tool(a=1)')).toMatch(/^Error during execution: .*\(<string>, line 1\)$/);
    // The instance variable itself, or a method reached through it under another name, is no function of the case.
    expect(result('m_GorillaFileSystem_instance.__class__(a=1)')).toMatch(/is not one of this case's functions/);
  });

  it('arithmetic in an argument is evaluated as Python would', () => {
    expect(prepareCall('cd(folder=2*3)', scope)).toEqual({
      call: { name: 'cd', args: [], kwargs: [['folder', ['i', '6']]] },
    });
  });
});
