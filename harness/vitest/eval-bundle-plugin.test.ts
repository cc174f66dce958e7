import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalBundlePlugin } from './eval-bundle-plugin.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-ebp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, 'worker-entries.json'),
  JSON.stringify({
    'harness/api/index.ts': 'w-api-index.mjs',
    'reporters/toolgauge.ts': 'w-reporter.mjs',
    'harness/api/matchers.ts': 'w-api-matchers.mjs',
  }),
);
// w-api-matchers.mjs is missing: its source loads as it is.
for (const f of ['w-api-index.mjs', 'w-reporter.mjs']) writeFileSync(join(dir, f), 'export {};\n');

const ROOT = '/checkout';
/** What the plugin makes of `source` when Vite's own resolution of it gives `resolved`. */
async function resolveTo(resolved: string | null, source = 'x') {
  const seen: Array<{ source: string; skipSelf: unknown }> = [];
  const ctx = {
    async resolve(s: string, _importer?: string, o?: { skipSelf?: boolean }) {
      seen.push({ source: s, skipSelf: o?.skipSelf });
      return resolved === null ? null : { id: resolved };
    },
  };
  const id = await evalBundlePlugin(ROOT, dir).resolveId.call(ctx, source, '/tmp/x.eval.ts', {});
  return { id, seen };
}

describe('evalBundlePlugin', () => {
  it('maps any import that resolves to a bundled entry to its bundle file, asking Vite without itself', async () => {
    const a = await resolveTo('/checkout/harness/api/index.ts', '../../checkout/harness/api/index.ts');
    expect(a.id).toBe(join(dir, 'w-api-index.mjs'));
    expect(a.seen).toEqual([{ source: '../../checkout/harness/api/index.ts', skipSelf: true }]);
    expect((await resolveTo('/checkout/reporters/toolgauge.ts')).id).toBe(join(dir, 'w-reporter.mjs'));
  });

  it("maps the checkout's built copy of an entry (dist/, where a project linking the checkout resolves 'toolgauge')", async () => {
    expect((await resolveTo('/checkout/dist/harness/api/index.js', 'toolgauge')).id).toBe(join(dir, 'w-api-index.mjs'));
    expect((await resolveTo('/checkout/dist/reporters/toolgauge.js')).id).toBe(join(dir, 'w-reporter.mjs'));
    // Not an entry's built copy: left to Vite.
    expect((await resolveTo('/checkout/dist/harness/api/index.d.ts')).id).toBeNull();
    expect((await resolveTo('/checkout/dist/harness/kit/registry.js')).id).toBeNull();
    expect((await resolveTo('/checkout/dist/harness/api/matchers.js')).id).toBeNull();
  });

  it('leaves everything else to Vite: other modules, look-alikes elsewhere, entries missing from the folder', async () => {
    expect((await resolveTo('/checkout/harness/kit/registry.ts')).id).toBeNull();
    expect((await resolveTo('/elsewhere/harness/api/index.ts')).id).toBeNull();
    expect((await resolveTo('/checkout/harness/api/index.ts?x=1')).id).toBeNull();
    expect((await resolveTo('/checkout/harness/api/matchers.ts')).id).toBeNull();
    expect((await resolveTo(null)).id).toBeNull();
  });
});
