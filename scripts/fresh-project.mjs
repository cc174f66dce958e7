// A fresh project that depends on toolgauge as a user's would, without the network: the package is packed
// (`npm pack`, whose prepack script builds dist/) and unpacked into the project's node_modules/toolgauge, and every
// other dependency is a symlink into this repository's node_modules (the same versions `npm ci` installed here).
// Used by the package's end-to-end test and by `npm run bench:eval`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `npm pack` into `dest`; returns the tarball's path. */
export function packToolgauge(dest) {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The prepack build's own output, if any, comes first on the same stream; the JSON array is last.
  const [info] = JSON.parse(out.slice(out.lastIndexOf('\n[') + 1));
  return { tarball: join(dest, info.filename), files: info.files.map((f) => f.path) };
}

/**
 * A project in `dir` (package.json of the given module type) with the tarball installed: node_modules/toolgauge
 * unpacked from it, node_modules/.bin/{toolgauge,vitest,tsc} as npm would link them, everything else linked here.
 */
export function freshProject(dir, { type, tarball }) {
  const nm = join(dir, 'node_modules');
  mkdirSync(join(nm, '.bin'), { recursive: true });
  mkdirSync(join(nm, 'toolgauge'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-evals', private: true, type }, null, 2));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === 'toolgauge') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(nm, name));
  }
  execFileSync('tar', ['xzf', tarball, '-C', join(nm, 'toolgauge'), '--strip-components=1']);
  symlinkSync('../toolgauge/bin/toolgauge.mjs', join(nm, '.bin', 'toolgauge'));
  symlinkSync('../vitest/vitest.mjs', join(nm, '.bin', 'vitest'));
  symlinkSync('../typescript/bin/tsc', join(nm, '.bin', 'tsc'));
  return dir;
}
