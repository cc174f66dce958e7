import { readFileSync, statSync, utimesSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { toolgauge } from '../helpers/cli.ts';

// The CLI starts from a cached bundle of its sources; the cache must never serve code older than the sources.

const MANIFEST = fromRoot('node_modules', '.cache', 'toolgauge-cli', 'manifest.json');
const manifest = () => JSON.parse(readFileSync(MANIFEST, 'utf8')) as { dir: string; inputs: Array<[string, number, number]> };

describe('the CLI bundle', () => {
  it('is rebuilt when a source file changes, and the sources still load without it', async () => {
    const first = await toolgauge(['--help']);
    expect(first.code, first.stderr).toBe(0);
    const before = manifest();
    expect(before.inputs.map(([f]) => f)).toContain('harness/cli/main.ts');

    // A newer mtime on one input (same content) makes the bundle stale.
    const src = fromRoot('harness', 'cli', 'flags.ts');
    const { atime, mtime } = statSync(src);
    try {
      utimesSync(src, atime, new Date(mtime.getTime() + 5_000));
      const again = await toolgauge(['--help']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      expect(manifest().dir).not.toBe(before.dir);
    } finally {
      utimesSync(src, atime, mtime);
    }

    const fromSource = await toolgauge(['--help'], { TOOLGAUGE_CLI_BUNDLE: '0' });
    expect(fromSource.code, fromSource.stderr).toBe(0);
    expect(fromSource.stdout).toBe(first.stdout);
  });
});
