import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

// V8 refuses Node's built-in code cache once any of its flags differs from the values Node was built with; Node
// then compiles each of its own modules loaded after from source. Node's own count of which built-ins were
// compiled with the cache (its internal `builtins` binding, behind --expose-internals, a Node flag and not V8's) is
// the oracle: a `--require`d probe writes it, and the young generation's size, when the process exits.

const PROBE = `const { internalBinding } = require('internal/test/binding');
const { getHeapSpaceStatistics } = require('node:v8');
process.on('exit', () => {
  // Short-lived objects enough to grow the young generation to its limit.
  const keep = [];
  for (let i = 0; i < 400000; i++) keep.push({ i, s: 'x' + i });
  const u = internalBinding('builtins').getCacheUsage();
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  require('node:fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({
    withCache: [...u.compiledWithCache], withoutCache: [...u.compiledWithoutCache],
    youngMiB: young.space_size / 2 ** 20, kept: keep.length,
  }));
});
`;

export interface CacheUsage {
  withCache: string[];
  withoutCache: string[];
  youngMiB: number;
}

/**
 * The probe written into `dir`: `nodeArgs` go before a Node program (the probe loads first), `env` names the file it
 * writes, `read` reads that file after the process ended.
 */
export function codeCacheProbe(dir: string): {
  nodeArgs: string[];
  env: { PROBE_OUT: string };
  read: () => CacheUsage;
} {
  const probe = join(dir, 'probe.cjs');
  const out = join(dir, 'usage.json');
  writeFileSync(probe, PROBE);
  return {
    nodeArgs: ['--expose-internals', '--require', probe],
    env: { PROBE_OUT: out },
    read: () => JSON.parse(readFileSync(out, 'utf8')) as CacheUsage,
  };
}

/** The Node flags of bin/toolgauge.mjs's shebang line: `toolgauge` started as a user's shell starts it. */
export function shebangNodeFlags(): string[] {
  const shebang = readFileSync(fromRoot('bin', 'toolgauge.mjs'), 'utf8').split('\n')[0]!;
  return shebang.slice(shebang.indexOf(' node ') + ' node '.length).split(' ');
}

/** Node modules loaded after the process's first statement: each was compiled with the cache. */
export function expectCached(usage: CacheUsage, modules: readonly string[]): void {
  for (const m of modules) {
    expect(usage.withCache, m).toContain(m);
    expect(usage.withoutCache, m).not.toContain(m);
  }
}
