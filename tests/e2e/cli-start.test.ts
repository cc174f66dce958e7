import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { cleanEnv, tempDir } from '../helpers/cli.ts';

// V8 refuses Node's built-in code cache once any of its flags differs from the values Node was built with; Node
// then compiles each of its own modules loaded after from source. Node's own count of which built-ins were
// compiled with the cache (its internal `builtins` binding, behind --expose-internals) is the oracle.

const PROBE = `const { internalBinding } = require('internal/test/binding');
const { getHeapSpaceStatistics } = require('node:v8');
process.on('exit', () => {
  // Short-lived objects enough to grow the young generation to its limit.
  const keep = [];
  for (let i = 0; i < 200000; i++) keep.push({ i, s: 'x' + i });
  const u = internalBinding('builtins').getCacheUsage();
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({
    withCache: [...u.compiledWithCache], withoutCache: [...u.compiledWithoutCache],
    youngMiB: young.space_size / 2 ** 20, kept: keep.length,
  }));
});
`;

describe('the toolgauge command started as its shebang line starts it', () => {
  it("compiles the Node modules it loads with Node's code cache, and keeps the shebang's young generation", async () => {
    const dir = tempDir('cli-start');
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'usage.json');
    writeFileSync(probe, PROBE);
    const bin = fromRoot('bin', 'toolgauge.mjs');
    const shebang = readFileSync(bin, 'utf8').split('\n')[0]!;
    const nodeFlags = shebang.slice(shebang.indexOf(' node ') + ' node '.length).split(' ');
    expect(nodeFlags).toContain('--max-semi-space-size=2');
    const r = await execa('node', ['--expose-internals', ...nodeFlags, '--require', probe, bin, '--help'], {
      env: cleanEnv({ PROBE_OUT: out }),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const usage = JSON.parse(readFileSync(out, 'utf8')) as {
      withCache: string[];
      withoutCache: string[];
      youngMiB: number;
    };
    // What Node loads before the command's first statement runs (its module loader, the standard streams) is
    // compiled without the cache; what the command loads after (the launcher's child_process, the CLI's crypto) is not.
    for (const m of ['child_process', 'crypto']) {
      expect(usage.withCache, m).toContain(m);
      expect(usage.withoutCache, m).not.toContain(m);
    }
    // Two semi-spaces of 2 MiB (V8's default would have grown them to 16 MiB each).
    expect(usage.youngMiB).toBeLessThanOrEqual(4);
  });
});
