import { dirname, join } from 'node:path';

/**
 * An esbuild plugin for a bundle that holds zod: zod's namespace re-exports its ~50 message locales (0.5 MB of the
 * 0.75 MB it adds); toolgauge's messages are English, zod's default, so the locale index holds English alone. Used by
 * the checkout's CLI bundle (bin/cli-bundle.mjs) and the package build (scripts/bundle-dist.mjs).
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return { path: join(dirname(args.importer), '..', 'locales', 'en.js'), namespace: 'zod-locales' };
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};
