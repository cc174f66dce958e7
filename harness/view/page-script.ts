import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The page's code, bundled: written beside this module by `npm run build` (scripts/build.mjs). */
export const BUILT_PAGE = join(HERE, 'page.js');
/** Its TypeScript source (browser code: harness/view/page, type-checked with its own tsconfig there). */
export const PAGE_ENTRY = join(HERE, 'page', 'app.ts');

let cached: string | null = null;

/**
 * The page's JavaScript: the bundle an installed package ships, or, in a checkout (where the sources and the dev
 * dependencies are), the sources bundled now with esbuild (in memory, about 50 ms). An installed package never
 * reaches esbuild: the build wrote page.js.
 */
export async function pageScript(): Promise<string> {
  if (cached) return cached;
  if (existsSync(BUILT_PAGE)) return (cached = readFileSync(BUILT_PAGE, 'utf8'));
  if (!existsSync(PAGE_ENTRY))
    throw new Error(`toolgauge view: neither ${BUILT_PAGE} nor ${PAGE_ENTRY} exists (a broken install?)`);
  const esbuild = 'esbuild';
  const { build } = (await import(esbuild)) as typeof import('esbuild');
  const out = await build({
    entryPoints: [PAGE_ENTRY],
    bundle: true,
    write: false,
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return (cached = out.outputFiles[0]!.text);
}
