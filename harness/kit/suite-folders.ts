import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { UsageError } from '../core/errors.ts';

/**
 * The registry of built-in suites: every folder of harness/ that holds a `suite.json` is a suite, and declares itself
 * there (docs/adding-a-suite.md). Beside it the folder holds `suite.ts` (its SuiteDefinition as the default export)
 * and `command.ts` (its `toolgauge <name>` command); its eval part files are `suites/<name>/*.eval.ts`. The CLI's
 * commands and usage, the lazily loaded suites (harness/builtin/load.ts), the CLI bundle's worker entries
 * (bin/cli-bundle.mjs) and the layer check (tests/hygiene/layers.test.ts) all read this list, none keeps its own.
 */

export const SUITE_DECLARATION = 'suite.json';

const Declaration = z
  .object({
    /** The folder's name: the suite's name, its command and its `suites/<name>/` eval parts folder. */
    name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be a lowercase name (letters, digits, dashes)'),
    /** Where the suite stands in `toolgauge --help` (lower first). */
    order: z.number().int(),
    /** Its lines in `toolgauge --help`, without the leading `toolgauge `. */
    usage: z.array(z.string().min(1)).min(1),
  })
  .strict();

export interface SuiteFolder extends z.infer<typeof Declaration> {
  /** The suite's folder (absolute). */
  dir: string;
}

/** harness/ of the tree this module was loaded from: the sources, or the package's dist/harness. */
export const HARNESS_DIR = fileURLToPath(new URL('..', import.meta.url));

/** A folder of this tree's harness/ (the other kind: a test's throwaway suite elsewhere, loaded by its path). */
export const isBuiltIn = (f: Pick<SuiteFolder, 'name' | 'dir'>): boolean =>
  resolve(f.dir) === join(HARNESS_DIR, f.name);

/** One folder's declaration; a bad one is one line naming the file and the field. */
export function readSuiteFolder(dir: string): SuiteFolder {
  const file = join(dir, SUITE_DECLARATION);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message}`);
  }
  const r = Declaration.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new UsageError(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const folder = dir
    .replace(/[\\/]+$/, '')
    .split(/[\\/]/)
    .at(-1);
  if (r.data.name !== folder)
    throw new UsageError(`${file}: name: '${r.data.name}' is not the folder's name '${folder}'`);
  return { ...r.data, dir };
}

/** The suite folders under `harness` (default: this tree's), in their `order`. */
export function suiteFolders(harness: string = HARNESS_DIR): SuiteFolder[] {
  return readdirSync(harness, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(harness, d.name, SUITE_DECLARATION)))
    .map((d) => readSuiteFolder(join(harness, d.name)))
    .sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

/** `toolgauge --help`'s lines for the suites, aligned as the rest of the usage. */
export function suiteUsageLines(folders: readonly SuiteFolder[]): string[] {
  return folders.flatMap((f) => f.usage.map((line) => `  toolgauge ${line}`));
}
