import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

// `toolgauge eval --parts N`: Vitest collects every test of a file before it runs any, and keeps them until the file
// ends, so the test worker's memory grows with an eval's cases (several kilobytes each). Run as N part files, one
// after another in the same worker, the worker holds one part's tests at a time: each part file imports the eval
// file anew (a query makes it a module of its own) with the part set around the import, and describeEval registers
// only that part's cases. The parts' results go to the same output directory, journal and summary as one run's.

/** Which part of its eval file is being loaded; set by a part file only while it imports the eval. */
export interface EvalPart {
  part: number;
  parts: number;
  /** The eval file the part is of (its name is the eval's, however many parts load it). */
  file?: string;
}

const PART_KEY = Symbol.for('toolgauge.evalPart');

/** The part of the eval file whose module is being evaluated now, if it is loaded as a part. */
export function currentEvalPart(): EvalPart | undefined {
  const p = (globalThis as Record<symbol, unknown>)[PART_KEY] as EvalPart | undefined;
  if (!p || !Number.isInteger(p.part) || !Number.isInteger(p.parts) || p.parts <= 1) return undefined;
  return { part: p.part, parts: p.parts, ...(typeof p.file === 'string' ? { file: p.file } : {}) };
}

/** The source of part `part` of `parts` of the eval file at the absolute path `file` (imported with `/`s, as Vite names files). */
export function partFileSource(file: string, part: number, parts: number): string {
  const key = 'Symbol.for("toolgauge.evalPart")';
  return `// Part ${part} of ${parts} of ${JSON.stringify(file)}, written by \`toolgauge eval --parts\`.
globalThis[${key}] = { part: ${part}, parts: ${parts}, file: ${JSON.stringify(file)} };
try {
  await import(${JSON.stringify(`${file.replace(/\\/g, '/')}?toolgauge-part=${part}`)});
} finally {
  delete globalThis[${key}];
}
`;
}

/** Where part files are, as a pattern of their paths. */
export const PART_FILES = /[\\/]node_modules[\\/]\.toolgauge[\\/]eval-parts[\\/]/;

/** The folder of the part files, under the project's node_modules (Vitest's own cache lives there too). */
export function partsFolder(root: string, file: string): string {
  const id = createHash('sha256').update(file).digest('hex').slice(0, 12);
  return join(root, 'node_modules', '.toolgauge', 'eval-parts', id);
}

/**
 * Write the part files of an eval file (an absolute path) and return their paths. A part file's path and text
 * depend only on the eval file and the number of parts, so concurrent runs of one eval write the same files and
 * Vitest's per-file cache stays the same from run to run; they are left in place.
 */
export function writePartFiles(root: string, file: string, parts: number): string[] {
  const dir = partsFolder(root, file);
  mkdirSync(dir, { recursive: true });
  const stem = basename(file).replace(/\.eval\.[cm]?[jt]s$/, '');
  const out: string[] = [];
  for (let part = 1; part <= parts; part++) {
    const path = join(dir, `${stem}.part-${part}-of-${parts}.eval.mjs`);
    const text = partFileSource(file, part, parts);
    if (readOrNull(path) !== text) writeFileSync(path, text);
    out.push(path);
  }
  return out;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
