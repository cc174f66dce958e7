import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * The packed package (tests/package/global-setup.ts), once `npm pack` has finished: the tarball, the files it holds,
 * and the folder it was unpacked into (freshProject's `unpacked`).
 */
export async function packed(waitMs = 300_000): Promise<{ tarball: string; files: string[]; unpacked: string }> {
  const file = join(inject('toolgaugePackDir'), 'pack.json');
  const until = Date.now() + waitMs;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error(`npm pack did not finish within ${waitMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const r = JSON.parse(readFileSync(file, 'utf8')) as
    | { tarball: string; files: string[]; unpacked: string }
    | { error: string };
  if ('error' in r) throw new Error(`npm pack failed: ${r.error}`);
  return r;
}
