import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArguments, truncateResult } from './executor.ts';
import { validJsonArguments, pyJsonDumps } from '../agent/loop.ts';

describe('ToolHop tool messages', () => {
  it('cuts results at the budget in code points, with the reference marker and the full length', () => {
    expect(truncateResult('abc', 3)).toBe('abc');
    expect(truncateResult('abcd', 3)).toBe('abc\n... [truncated tool result: 4 chars]');
    // An emoji is one Python character but two UTF-16 units.
    expect(truncateResult('😀😀😀', 2)).toBe('😀😀\n... [truncated tool result: 3 chars]');
    expect(truncateResult('x'.repeat(10), 4, 5_000_000)).toBe('xxxx\n... [truncated tool result: 5000000 chars]');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (s, n) => {
        const out = truncateResult(s, n);
        const len = Array.from(s).length;
        return len <= n ? out === s : out.startsWith(Array.from(s).slice(0, n).join('')) && out.endsWith(`[truncated tool result: ${len} chars]`);
      }),
    );
  });

  it('applies the reference argument rules', () => {
    expect(parseArguments('')).toEqual({ args: {} });
    expect(parseArguments('{"a": 1}')).toEqual({ args: { a: 1 } });
    expect(parseArguments('[1]')).toEqual({ error: 'expected a JSON object, got list' });
    expect(parseArguments('"x"')).toEqual({ error: 'expected a JSON object, got str' });
    expect(parseArguments('3')).toEqual({ error: 'expected a JSON object, got int' });
    expect(parseArguments('null')).toEqual({ error: 'expected a JSON object, got NoneType' });
    expect('error' in parseArguments('{"a": ')).toBe(true);
  });

  it('keeps history arguments valid JSON in Python layout', () => {
    expect(validJsonArguments('')).toBe('{}');
    expect(validJsonArguments('{"a":1,"b":[1,2]}')).toBe('{"a": 1, "b": [1, 2]}');
    expect(validJsonArguments('{"a": ')).toBe('{"_malformed_arguments": "{\\"a\\": "}');
    expect(pyJsonDumps({ é: 'ü', n: null })).toBe('{"é": "ü", "n": null}');
  });
});
