import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
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
  // once. An eval thread started with the flag held must get the young generation of a thread started under the
  // shebang's flag (2 × 2 MiB), not the 16 MiB V8 gives a thread by default, whatever the thread's resourceLimits.
  // One process starts both threads, one after the other: first with nothing held (the oracle's other side: V8's
  // default for a thread, past 4 MiB), then with the flag held.
  it("give the eval thread started after the process's reset the young generation of the shebang's flag", () => {
    const dir = tempDir('thread-heap');
    const out = (side: string) => join(dir, `young-${side}.json`);
    // Loaded by an early thread: short-lived objects enough to grow the young generation to its limit.
    const grow = (side: string) => {
      const file = join(dir, `grow-${side}.mjs`);
      writeFileSync(
        file,
        `import { writeFileSync } from 'node:fs';\nimport { getHeapSpaceStatistics } from 'node:v8';\nlet keep = [];\nfor (let i = 0; i < 5e5; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }\nconst young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');\nwriteFileSync(${JSON.stringify(out(side))}, JSON.stringify(young.space_size / 2 ** 20));\n`,
      );
      return file;
    };
    const script = join(dir, 'start.mts');
    const url = (p: string) => JSON.stringify(pathToFileURL(p).href);
    writeFileSync(
      script,
      [
        `import { setFlagsFromString } from 'node:v8';`,
        `import { existsSync } from 'node:fs';`,
        `import { holdThreadHeapV8Flags } from ${url(fromRoot('harness', 'core', 'thread-heap-v8-flags.ts'))};`,
        `import { discardPrethread, prestartVitestThread } from ${url(fromRoot('harness', 'vitest', 'prethread.ts'))};`,
        `setFlagsFromString('--max-semi-space-size=0');`,
        `const run = (preload, done) => new Promise((resolve) => {`,
        `  const early = prestartVitestThread([preload]);`,
        `  const wait = setInterval(() => { if (existsSync(done)) { clearInterval(wait); void discardPrethread(early).then(resolve); } }, 20);`,
        `});`,
        `await run(${url(grow('unheld'))}, ${JSON.stringify(out('unheld'))});`,
        `holdThreadHeapV8Flags(['--max-semi-space-size=2']);`,
        `await run(${url(grow('held'))}, ${JSON.stringify(out('held'))});`,
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, ['--max-semi-space-size=2', '--import', 'tsx', script], {
      cwd: fromRoot(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const youngMiB = (side: string) => JSON.parse(readFileSync(out(side), 'utf8')) as number;
    expect(youngMiB('held')).toBeLessThanOrEqual(4);
    expect(youngMiB('unheld')).toBeGreaterThan(4);
  });
});
