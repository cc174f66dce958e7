import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from '../../core/errors.ts';
import { flagSchemas, parseFlags } from './flags.ts';
import { MODEL_FLAGS } from './model-flags.ts';

describe('CLI flags', () => {
  const specs = {
    limit: { type: 'string' as const, schema: flagSchemas.nonNegativeInt },
    tier: { type: 'string' as const, values: ['strict', 'lenient'] },
    url: { type: 'string' as const, schema: z.string().url('must be a URL') },
    resume: { type: 'boolean' as const },
    filter: { type: 'string' as const, short: 't' },
  };
  it('parses and coerces values', () => {
    expect(
      parseFlags('x', ['--limit', '7', '--tier', 'strict', '--resume', '-t', 'toolhop › 11 '], specs).values,
    ).toEqual({
      limit: 7,
      tier: 'strict',
      resume: true,
      filter: 'toolhop › 11 ',
    });
  });
  it('rejects unknown flags, bad values and stray arguments with a one-line UsageError naming the flag', () => {
    expect(() => parseFlags('x', ['--lmit', '3'], specs)).toThrow(UsageError);
    expect(() => parseFlags('x', ['--lmit', '3'], specs)).toThrow(
      "toolgauge x: unknown flag '--lmit' (did you mean '--limit'?)",
    );
    expect(() => parseFlags('x', ['--bogus'], specs)).toThrow(
      "toolgauge x: unknown flag '--bogus' (toolgauge x --help lists them)",
    );
    expect(() => parseFlags('x', ['-q'], specs)).toThrow(
      "toolgauge x: unknown flag '-q' (toolgauge x --help lists them)",
    );
    expect(() => parseFlags('x', ['--limit', 'many'], specs)).toThrow(/--limit must be a number \(got 'many'\)/);
    // A negative number after a flag is its value, checked as any other (not parseArgs's "argument is ambiguous").
    expect(() => parseFlags('x', ['--limit', '-1'], specs)).toThrow("toolgauge x: --limit must be >= 0 (got '-1')");
    expect(() => parseFlags('x', ['--limit', '-.5'], specs)).toThrow(
      "toolgauge x: --limit must be an integer (got '-.5')",
    );
    expect(parseFlags('x', ['-t', '-2', '--resume'], specs).values).toEqual({ filter: '-2', resume: true });
    expect(parseFlags('x', ['--resume', '--', '-3'], specs, true).positionals).toEqual(['-3']);
    expect(() => parseFlags('x', ['--limit', '--resume'], specs)).toThrow(/--limit/);
    expect(() => parseFlags('x', ['--tier', 'loose'], specs)).toThrow(
      "toolgauge x: --tier must be one of strict|lenient (got 'loose')",
    );
    expect(() => parseFlags('x', ['--url', 'nope'], specs)).toThrow(/--url must be a URL/);
    expect(() => parseFlags('x', ['extra'], specs)).toThrow(/unexpected argument 'extra'/);
  });

  it("an empty --model (an unset variable) is refused, not read as the simulator's default", () => {
    for (const empty of ['', ' '])
      expect(() => parseFlags('x', ['--model', empty], MODEL_FLAGS)).toThrow(
        `toolgauge x: --model must not be empty (leave the flag out for the simulator) (got '${empty}')`,
      );
    expect(parseFlags('x', ['--model', 'sim:wrong'], MODEL_FLAGS).values).toEqual({ model: 'sim:wrong' });
  });

  it('a list flag takes the words after it up to the next flag; other flags and positional commands do not', () => {
    const lists = {
      ...specs,
      modes: { type: 'string' as const, list: true },
      only: { type: 'string' as const, list: true, multiple: true },
    };
    expect(
      parseFlags('x', ['--modes', 'P0', 'P1', '--resume', '--only', '3', '4', '--only', '7'], lists).values,
    ).toEqual({
      modes: 'P0,P1',
      resume: true,
      only: ['3,4', '7'],
    });
    // `--flag=V` takes no more words, a word after a non-list flag stays a stray argument, `--` ends the flags.
    expect(() => parseFlags('x', ['--modes=P0', 'P1'], lists)).toThrow(/unexpected argument 'P1'/);
    expect(() => parseFlags('x', ['--limit', '3', '4'], lists)).toThrow(/unexpected argument '4'/);
    expect(parseFlags('x', ['--modes', 'P0', '--', 'P1'], lists, true).positionals).toEqual(['P1']);
    // A command with positionals keeps them: there a list is a comma list.
    expect(parseFlags('x', ['--modes', 'P0', 'DIR'], lists, true)).toEqual({
      values: { modes: 'P0' },
      positionals: ['DIR'],
    });
    expect(() => parseFlags('x', ['--modes'], lists)).toThrow(/--modes/);
  });
});
