import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '../../core/hash.ts';

/** The built-in tool files' folder (library.ts's BUILTIN_TOOLS_DIR, without its final slash). */
const TOOLS_DIR = fileURLToPath(new URL('../../../cases/maze/tools', import.meta.url));

/**
 * The built-in tool files' YAML as data, each with the sha256 of the text it was read from: beside the folder, not
 * in it (every .json in the folder is a library file). Written by scripts/maze-tools-parsed.ts.
 */
export const PARSED_BUILTIN_FILE = fileURLToPath(new URL('../../../cases/maze/tools.parsed.json', import.meta.url));

export type ParsedBuiltin = Record<string, { sha256: string; data: unknown }>;

let parsed: ParsedBuiltin | undefined;

/**
 * A built-in tool file's YAML as data, taken from PARSED_BUILTIN_FILE when `text` is the text it was read from
 * (its sha256), else undefined: the caller reads the YAML (a file edited since, a user's file). Reading the built-in
 * files' YAML was most of Maze's first load in a process (about 0.3 of 0.4 CPU-s, the parser's code still cold);
 * the same data as JSON parses in a few milliseconds.
 */
export function parsedBuiltin(path: string, text: string): { data: unknown } | undefined {
  if (dirname(path) !== TOOLS_DIR) return undefined;
  parsed ??= existsSync(PARSED_BUILTIN_FILE)
    ? (JSON.parse(readFileSync(PARSED_BUILTIN_FILE, 'utf8')) as ParsedBuiltin)
    : {};
  const entry = parsed[basename(path)];
  return entry && entry.sha256 === sha256(text) ? { data: structuredClone(entry.data) } : undefined;
}
