import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolhopExecutor, parseArguments, truncateResult } from './executor.ts';
import { validJsonArguments, pyJsonDumps } from '../agent/loop.ts';
import type { Sandbox, ToolOutcome } from '../sandbox/index.ts';
import { ToolhopRow } from './row.ts';

const ROW = ToolhopRow.parse({
  id: 1,
  question: 'q',
  answer: 'a',
  sub_task: { s: 'a' },
  tools: { s: { name: 'f', parameters: { type: 'object', properties: {} } } },
  functions: ['def f():\n    return 1\n'],
});

/** A sandbox that answers every call with `outcome`. */
function sandboxAnswering(outcome: ToolOutcome): Sandbox {
  return { call: async () => outcome } as unknown as Sandbox;
}

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
        return len <= n
          ? out === s
          : out.startsWith(Array.from(s).slice(0, n).join('')) && out.endsWith(`[truncated tool result: ${len} chars]`);
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

describe('ToolhopExecutor', () => {
  it('cuts a huge exception message at the budget with the marker and the full length', async () => {
    const message = 'm'.repeat(1_000_000);
    const exec = new ToolhopExecutor(
      ROW,
      sandboxAnswering({ kind: 'exception', excType: 'ValueError', message, durationMs: 1, truncatedFrom: 5_000_000 }),
      100,
    );
    const out = await exec.execute({ id: 'c1', name: 'f', argumentsJson: '{}' });
    const prefix = 'an error occurred when calling f: ';
    expect(out.content).toBe(
      `${(prefix + 'm'.repeat(100)).slice(0, 100)}\n... [truncated tool result: ${prefix.length + 5_000_000} chars]`,
    );
  });

  it('keeps short error messages whole', async () => {
    const exec = new ToolhopExecutor(
      ROW,
      sandboxAnswering({ kind: 'timeout', message: 'tool call exceeded 10 ms', durationMs: 10 }),
      6000,
    );
    const out = await exec.execute({ id: 'c1', name: 'f', argumentsJson: '{}' });
    expect(out.content).toBe('an error occurred when calling f: tool call exceeded 10 ms');
  });
});
