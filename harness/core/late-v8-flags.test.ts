import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferV8Flags, setLateV8Flags } from './late-v8-flags.ts';

// V8's flags as the module under test sets them, recorded instead of set: a flag set here would be this whole test
// process's (the unit project's workers run many files each), and would stop Node's built-in code cache there.
const v8Flags: string[] = [];
const record = (flag: string) => {
  v8Flags.push(flag);
};

afterEach(() => {
  setLateV8Flags(record);
  v8Flags.length = 0;
  vi.restoreAllMocks();
});

describe('V8 flags handed over for later', () => {
  it('are set when the run asks, not when they are handed over, and only once', () => {
    deferV8Flags(['--heap-growing-percent=50', '--no-turbo-inlining']);
    expect(v8Flags).toEqual([]);
    setLateV8Flags(record);
    expect(v8Flags).toEqual(['--heap-growing-percent=50', '--no-turbo-inlining']);
    setLateV8Flags(record);
    expect(v8Flags).toHaveLength(2);
  });

  it('set nothing when none were handed over (a caller of main() inside another process)', () => {
    deferV8Flags([]);
    setLateV8Flags(record);
    expect(v8Flags).toEqual([]);
  });

  it("are handed over by the CLI's main() from its host (the command's own process), and by no other caller", async () => {
    const { main } = await import('../cli/main.ts');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(await main(['--help'], [])).toBe(0);
    setLateV8Flags(record);
    expect(v8Flags).toEqual([]);
    expect(await main(['--help'], [], { lateV8Flags: ['--heap-growing-percent=50'] })).toBe(0);
    expect(v8Flags).toEqual([]);
    setLateV8Flags(record);
    expect(v8Flags).toEqual(['--heap-growing-percent=50']);
  });
});
