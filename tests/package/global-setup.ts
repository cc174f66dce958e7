import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { fromRoot } from '../../harness/core/paths.ts';

// The package tests share one `npm pack` (its prepack script builds dist/), started here in the background so the
// build overlaps the unit tests, and one unpacking of its tarball; each package test file awaits them
// (tests/package/pack.ts) and installs the package into fresh projects of its own (hard links to the unpacked files).

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The folder `npm pack` writes into; `pack.json` ({tarball, files, unpacked} or {error}) appears there when the
     * tarball is packed and unpacked.
     */
    toolgaugePackDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'tg-pack-'));
  const script = `import(${JSON.stringify(fromRoot('scripts', 'fresh-project.mjs'))}).then((m) => {
    const fs = require('node:fs');
    let result;
    try {
      result = m.packToolgauge(process.argv[1]);
      result.unpacked = m.unpackToolgauge(result.tarball, process.argv[1] + '/unpacked');
    } catch (e) { result = { error: String(e && e.stack || e) }; }
    fs.writeFileSync(process.argv[1] + '/pack.json.tmp', JSON.stringify(result));
    fs.renameSync(process.argv[1] + '/pack.json.tmp', process.argv[1] + '/pack.json');
  });`;
  const child = spawn(process.execPath, ['-e', script, dir], { stdio: 'ignore' });
  project.provide('toolgaugePackDir', dir);
  return () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
}
