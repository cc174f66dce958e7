import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { packToolgauge } from '../../scripts/fresh-project.mjs';

// The package tests share one `npm pack` (its prepack script builds dist/): each test file installs the same
// tarball into fresh projects of its own.

declare module 'vitest' {
  export interface ProvidedContext {
    toolgaugePack: { tarball: string; files: string[] };
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'tg-pack-'));
  project.provide('toolgaugePack', packToolgauge(dir) as { tarball: string; files: string[] });
  return () => rmSync(dir, { recursive: true, force: true });
}
