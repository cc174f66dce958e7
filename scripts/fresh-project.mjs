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

/** The tarball's package unpacked into `dest` (created), as npm installs it into node_modules/toolgauge. */
export function unpackToolgauge(tarball, dest) {
  mkdirSync(dest);
  execFileSync('tar', ['xzf', tarball, '-C', dest, '--strip-components=1']);
  return dest;
}

/**
 * A project in `dir` (package.json of the given module type) with the tarball installed: node_modules/toolgauge
 * unpacked from it, node_modules/.bin/{toolgauge,vitest,tsc} as npm would link them, everything else linked here.
 * With `unpacked` (the same tarball through unpackToolgauge), node_modules/toolgauge is a copy of that folder whose
 * files are hard links: the same files as a fresh unpacking, for about a sixth of its CPU (no gunzip, no file written).
 */
export function freshProject(dir, { type, tarball, unpacked }) {
  const nm = join(dir, 'node_modules');
  mkdirSync(join(nm, '.bin'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-evals', private: true, type }, null, 2));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === 'toolgauge') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(nm, name));
  }
  if (unpacked) execFileSync('cp', ['-al', unpacked, join(nm, 'toolgauge')]);
  else unpackToolgauge(tarball, join(nm, 'toolgauge'));
  symlinkSync('../toolgauge/bin/toolgauge.mjs', join(nm, '.bin', 'toolgauge'));
  symlinkSync('../vitest/vitest.mjs', join(nm, '.bin', 'vitest'));
  symlinkSync('../typescript/bin/tsc', join(nm, '.bin', 'tsc'));
  return dir;
}
