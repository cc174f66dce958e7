import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleEntries } from './eval-config.ts';

/** The part of a Vite plugin this one uses (typed here so the library does not depend on Vite's types). */
export interface ResolvePlugin {
  name: string;
  enforce: 'pre';
  resolveId(
    this: { resolve(source: string, importer?: string, options?: object): Promise<{ id: string } | null> },
    source: string,
    importer: string | undefined,
    options: object,
  ): Promise<string | null>;
}

/**
 * `toolgauge eval` in a checkout, under the CLI's bundle (bin/cli-bundle.mjs): a module a user's eval file imports
 * that resolves to one of the bundle's entries (the public API, harness/api/*.ts; the reporter; each suite's
 * definition) loads from the bundle instead. The bundle lies under node_modules, so Vitest hands it to Node as it is,
 * a few files in all, as it hands an installed package's dist/; from source, Vite fetched and transformed the ~200
 * modules the API reaches, in a root whose module cache is empty (a project outside the checkout). Mapped by the
 * file an import resolves to, whatever the path that names it: every import of an entry gets the bundle's one copy
 * (its chunks are shared by all entries, so a registry or a class is one instance). `root`: the checkout (the
 * entries' paths are relative to it); `dir`: the bundle's folder.
 */
export function evalBundlePlugin(root: string, dir: string): ResolvePlugin {
  // An eval file of a project that links the checkout (`"toolgauge": "file:…"`, as examples/arith does) imports
  // 'toolgauge', which the package's exports resolve to the checkout's built copy once `dist/` exists: that copy is
  // the same entry, mapped to the bundle too (else Vite transforms the built API as a second copy, about 1.2 CPU-s).
  const files = new Map(
    Object.entries(bundleEntries(dir))
      .filter(([, file]) => existsSync(join(dir, file)))
      .flatMap(([source, file]) => [
        [join(root, source), join(dir, file)],
        [join(root, 'dist', source.replace(/\.ts$/, '.js')), join(dir, file)],
      ]),
  );
  return {
    name: 'toolgauge:eval-bundle',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (files.size === 0) return null;
      const r = await this.resolve(source, importer, { ...options, skipSelf: true });
      return (r && files.get(r.id)) ?? null;
    },
  };
}
