import { describe, expect, it, TestRunner } from 'vitest';
import { loadSetFn, registerWithoutStacks, releaseTestFn } from './lean-tests.ts';
import {
  bytesPerChar,
  cap,
  capTranscript,
  TRANSCRIPT_BUDGET,
  TRANSCRIPT_CAP,
  TRANSCRIPT_FLOOR,
  transcriptCap,
} from './suite-tests.ts';

describe('releasing a started test function', () => {
  it("replaces this very test's function in Vitest's own map", async ({ task }) => {
    expect(await loadSetFn()).toBeTypeOf('function');
    const before = TestRunner.getTestFn(task);
    expect(before).toBeTypeOf('function');
    releaseTestFn(task);
    const after = TestRunner.getTestFn(task);
    expect(after).not.toBe(before);
    expect(() => (after as () => void)()).toThrow(/released/);
  });

  it('keeps the function of a test Vitest may run again', { retry: 1 }, async ({ task }) => {
    await loadSetFn();
    const before = TestRunner.getTestFn(task);
    releaseTestFn(task);
    expect(TestRunner.getTestFn(task)).toBe(before);
    releaseTestFn({ ...task, retry: undefined, repeats: 2 } as never);
  });
});

describe('registering without stack traces', () => {
  it('captures no stack inside, even when the limit is set there, and restores the limit after', () => {
    const limit = Error.stackTraceLimit;
    const inside = registerWithoutStacks(() => {
      Error.stackTraceLimit = 10;
      return new Error('inside').stack;
    });
    expect(inside).toBeUndefined();
    expect(Error.stackTraceLimit).toBe(limit);
    expect(Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')).toHaveProperty('value', limit);
    expect(new Error('after').stack).toMatch(/after\n\s+at /);
  });

  it('restores the limit when the registration throws', () => {
    const limit = Error.stackTraceLimit;
    expect(() =>
      registerWithoutStacks(() => {
        throw new TypeError('boom');
      }),
    ).toThrow('boom');
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('x').stack).toContain('at ');
  });
});

describe('the transcripts kept in Vitest', () => {
  it('share one budget: whole for small blocks, a share for large ones, none where a share is too short', () => {
    expect(transcriptCap(1)).toBe(TRANSCRIPT_CAP);
    expect(transcriptCap(200)).toBe(TRANSCRIPT_CAP);
    expect(transcriptCap(10_000)).toBe(Math.floor(TRANSCRIPT_BUDGET / 10_000));
    const last = Math.floor(TRANSCRIPT_BUDGET / TRANSCRIPT_FLOOR);
    expect(transcriptCap(last)).toBeGreaterThanOrEqual(TRANSCRIPT_FLOOR);
    expect(transcriptCap(last + 1)).toBe(0);
    expect(transcriptCap(100_000)).toBe(0);
    // Whatever the size, the block's transcripts stay within the budget.
    for (const n of [1, 200, 300, 5_000, last, last + 1, 10_000_000])
      expect(transcriptCap(n) * n).toBeLessThanOrEqual(TRANSCRIPT_BUDGET);
  });

  it('says how much was cut and where the whole is', () => {
    const t = 'x'.repeat(1000);
    expect(cap(t, 2000, 'traces/a.json')).toBe(t);
    const cut = cap(t, 300, 'traces/a.json');
    expect(cut.startsWith('x'.repeat(300))).toBe(true);
    expect(cut).toContain('700 more characters');
    expect(cut).toContain('traces/a.json');
    expect(cap(t, 300, null)).not.toContain('traces');
  });

  it('are budgeted in the bytes V8 stores: a cut Latin-1 transcript stays one byte a character', () => {
    // V8 keeps a string with any character above U+00FF at two bytes a character: a non-ASCII cut marker would
    // double every cut transcript's memory, and the budget would hold only half.
    const latin = `toolhop 7: caf\u00e9 ${'x'.repeat(1000)}`;
    expect(bytesPerChar(latin)).toBe(1);
    const cut = capTranscript(latin, 300, 'traces/7+t0.json');
    expect(cut.startsWith(latin.slice(0, 300))).toBe(true);
    expect(bytesPerChar(cut)).toBe(1);
    expect(bytesPerChar(cap(latin, 300))).toBe(1);
  });

  it('give a transcript stored at two bytes a character half the characters of its share', () => {
    const wide = `toolhop 7: \u2026 ${'y'.repeat(1000)}`;
    expect(bytesPerChar(wide)).toBe(2);
    const cut = capTranscript(wide, 300, null);
    expect(cut.startsWith(wide.slice(0, 150))).toBe(true);
    expect(cut).not.toContain(wide.slice(0, 151));
    expect(cut).toContain(`${wide.length - 150} more characters`);
    // Short enough, it is kept whole either way.
    expect(capTranscript('ab\u2026', 300, null)).toBe('ab\u2026');
  });
});
