import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../tests/helpers/cli.ts';
import { fromRoot } from './paths.ts';
import { holdThreadHeapV8Flags, setThreadHeapV8Flags } from './thread-heap-v8-flags.ts';

// V8's flags as the module under test sets them, recorded instead of set (a flag set here would be this whole test
// process's).
const v8Flags: string[] = [];
const record = (flag: string) => {
  v8Flags.push(flag);
};

afterEach(() => {
  setThreadHeapV8Flags(record);
  v8Flags.length = 0;
});

describe('young-generation flags held for the threads a process starts', () => {
  it('are set when a thread is about to start, not when they are held, and once', () => {
    holdThreadHeapV8Flags(['--max-semi-space-size=2']);
    expect(v8Flags).toEqual([]);
    setThreadHeapV8Flags(record);
    expect(v8Flags).toEqual(['--max-semi-space-size=2']);
    setThreadHeapV8Flags(record);
    expect(v8Flags).toHaveLength(1);
  });

  it('set nothing when none were held', () => {
    holdThreadHeapV8Flags([]);
    setThreadHeapV8Flags(record);
    expect(v8Flags).toEqual([]);
  });

  // The process as bin/toolgauge.mjs leaves it: started with the shebang's semi-space size, reset to V8's default at
  // once, the flag held. The eval thread it then starts must get the young generation of a thread started under the
  // shebang's flag (2 × 2 MiB), not the 16 MiB V8 gives a thread by default, whatever the thread's resourceLimits.
  it("give the eval thread started after the process's reset the young generation of the shebang's flag", () => {
    const dir = tempDir('thread-heap');
    const out = join(dir, 'young.json');
    const grow = join(dir, 'grow.mjs');
    // Loaded by the early thread: short-lived objects enough to grow the young generation to its limit.
    writeFileSync(
      grow,
      `import { writeFileSync } from 'node:fs';\nimport { getHeapSpaceStatistics } from 'node:v8';\nlet keep = [];\nfor (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }\nconst young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');\nwriteFileSync(${JSON.stringify(out)}, JSON.stringify(young.space_size / 2 ** 20));\n`,
    );
    const script = join(dir, 'start.ts');
    const url = (p: string) => JSON.stringify(pathToFileURL(p).href);
    writeFileSync(
      script,
      [
        `import { setFlagsFromString } from 'node:v8';`,
        `import { existsSync } from 'node:fs';`,
        `import { holdThreadHeapV8Flags } from ${url(fromRoot('harness', 'core', 'thread-heap-v8-flags.ts'))};`,
        `import { discardPrethread, prestartVitestThread } from ${url(fromRoot('harness', 'vitest', 'prethread.ts'))};`,
        `setFlagsFromString('--max-semi-space-size=0');`,
        `holdThreadHeapV8Flags(process.argv.includes('--held') ? ['--max-semi-space-size=2'] : []);`,
        `const early = prestartVitestThread([${url(grow)}]);`,
        `const wait = setInterval(() => { if (existsSync(${JSON.stringify(out)})) { clearInterval(wait); void discardPrethread(early); } }, 20);`,
      ].join('\n'),
    );
    const youngMiB = (held: boolean) => {
      rmSync(out, { force: true });
      const r = spawnSync(
        process.execPath,
        ['--max-semi-space-size=2', '--import', 'tsx', script, ...(held ? ['--held'] : [])],
        { cwd: fromRoot(), encoding: 'utf8', timeout: 60_000 },
      );
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(readFileSync(out, 'utf8')) as number;
    };
    expect(youngMiB(true)).toBeLessThanOrEqual(4);
    // The oracle's other side: the same thread without the held flag grows past it (V8's default for a thread).
    expect(youngMiB(false)).toBeGreaterThan(4);
  });
});
