import { describe, expect, it } from 'vitest';
import { pathRewrites, rewritePaths, viewBase } from './relative-paths.ts';

describe('paths in the viewer', () => {
  const c = { base: '/u/me/proj/results', runDirs: ['/u/me/proj/results/a'], home: '/u/me', cwd: '/u/me/proj' };

  it('shows each absolute prefix relative to the opened folder, only where a path name ends', () => {
    const out = rewritePaths(
      {
        dir: '/u/me/proj/results/a',
        msg: 'read /u/me/proj/results/a/traces/x.json and /u/me/proj/results/ab/y, /u/me/.cache, /u/meow',
        list: ['/u/me/proj'],
      },
      pathRewrites(c),
    );
    expect(out).toEqual({
      dir: 'a',
      msg: 'read a/traces/x.json and ./ab/y, ~/.cache, /u/meow',
      list: ['..'],
    });
  });

  it('opened on run folders, the base is their parent; on several, the folder holding them all', () => {
    expect(viewBase(['/r/x/a'], ['/r/x/a'])).toBe('/r/x');
    expect(viewBase(['/r/x'], ['/r/x/a', '/r/x/b'])).toBe('/r/x');
    expect(viewBase(['/r/x/a', '/r/y/b'], ['/r/x/a', '/r/y/b'])).toBe('/r');
    // the filesystem's root is never rewritten
    expect(pathRewrites({ ...c, base: '/', home: '/' }).map(([abs]) => abs)).not.toContain('/');
  });
});
