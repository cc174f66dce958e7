// Parsed YAML kept as JSON between processes, for files many processes read unchanged (the built-in Maze tool
// library: a Maze command, its test worker and `toolgauge mcp serve maze` each read all of it). The `yaml` package
// takes about 0.4 CPU-s for those 120 KB in every process, most of it its parser's code warming up; JSON.parse of the
// same values takes a few milliseconds (docs/maze-tools.md, "Loading:").
//
// An entry is named by the sha256 of the text, the parse options and the `yaml` package's version, so an edited
// file or another parser is another entry. Only values JSON gives back exactly are kept (no Infinity, NaN or -0).
// The folder is trusted only as the CLI's bundle cache is: a folder (not a link) owned by this user with mode 700.
// Anything else, or any error, means no cache: the text is parsed.
import { createRequire } from 'node:module';
import { lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync, closeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { sha256 } from './hash.ts';
import { readYaml } from './yaml.ts';

/**
 * The folder of the entries: `~/.cache/toolgauge/yaml` (the home folder's; library code reads no environment, so
 * not $XDG_CACHE_HOME).
 */
export const YAML_CACHE_DIR = join(homedir(), '.cache', 'toolgauge', 'yaml');

let yamlVersion: string | undefined;
const parserVersion = () =>
  (yamlVersion ??= (createRequire(import.meta.url)('yaml/package.json') as { version: string }).version);

/** The folder, created if needed; undefined when it cannot be made or trusted. */
function trustedDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = lstatSync(dir);
    if (!s.isDirectory()) return undefined;
    if (typeof process.getuid === 'function' && s.uid !== process.getuid()) return undefined;
    if ((s.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

export interface YamlCacheOptions {
  uniqueKeys?: boolean;
  /** The cache folder; undefined: no cache. */
  dir: string | undefined;
  /** The parser used on a miss (tests count its calls). */
  parse?: (text: string, o: { uniqueKeys?: boolean }) => unknown;
}

/** `readYaml(text)`, from the cache folder when it holds this text's values. Errors are readYaml's, never cached. */
export function readYamlCached(text: string, o: YamlCacheOptions): unknown {
  const parse = o.parse ?? readYaml;
  const uniqueKeys = o.uniqueKeys ?? true;
  const dir = o.dir === undefined ? undefined : trustedDir(o.dir);
  if (!dir) return parse(text, { uniqueKeys });
  const file = join(dir, `${sha256(`${parserVersion()}\0${uniqueKeys}\0${text}`)}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    // no entry yet, or one cut short: parse, and keep it for the next process
  }
  const value = parse(text, { uniqueKeys });
  keep(file, value);
  return value;
}

/** Writes the entry atomically when JSON gives the value back exactly; a failure only loses the cache. */
function keep(file: string, value: unknown): void {
  const json = JSON.stringify(value);
  if (json === undefined || !isDeepStrictEqual(JSON.parse(json), value)) return;
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'wx', 0o600);
    try {
      writeSync(fd, json);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}
