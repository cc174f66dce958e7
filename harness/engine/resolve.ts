// Where node-llama-cpp is: the ordinary package resolution (a user's `npm install node-llama-cpp@3.21.1` beside
// toolgauge), else the checkout's .engine/ (scripts/install-engine.sh). Only a found, exactly pinned version counts.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fromRoot } from '../core/paths.ts';
import { ENGINE_MISSING_MESSAGE, EngineError, NODE_LLAMA_CPP_VERSION } from './types.ts';

export interface EngineModule {
  /** file:// URL of node-llama-cpp's ESM entry, for the child's `import()`. */
  entry: string;
  version: string;
  dir: string;
}

/** Directories that may hold node_modules/node-llama-cpp, nearest first. */
function candidates(): string[] {
  const out: string[] = [];
  for (let d = fromRoot(); ; d = dirname(d)) {
    out.push(join(d, 'node_modules', 'node-llama-cpp'));
    if (dirname(d) === d) break;
  }
  out.push(
    fromRoot('.engine', 'node_modules', 'node-llama-cpp'),
    resolve(fromRoot(), '..', '.engine', 'node_modules', 'node-llama-cpp'),
  );
  return out;
}

/** The installed node-llama-cpp, or undefined (with the versions found, when they are not the pinned one). */
export function findNodeLlamaCpp(dirs: string[] = candidates()): { found?: EngineModule; wrongVersions: string[] } {
  const wrongVersions: string[] = [];
  for (const dir of dirs) {
    const pj = join(dir, 'package.json');
    if (!existsSync(pj)) continue;
    let pkg: { version?: string; exports?: unknown };
    try {
      pkg = JSON.parse(readFileSync(pj, 'utf8')) as typeof pkg;
    } catch {
      continue;
    }
    if (pkg.version !== NODE_LLAMA_CPP_VERSION) {
      wrongVersions.push(`${pkg.version} in ${dir}`);
      continue;
    }
    const entry = join(dir, 'dist', 'index.js');
    if (!existsSync(entry)) continue;
    return { found: { entry: pathToFileURL(entry).href, version: pkg.version, dir }, wrongVersions };
  }
  return { wrongVersions };
}

/** node-llama-cpp, or the one-line error saying how to get it. */
export function requireNodeLlamaCpp(
  find: () => { found?: EngineModule; wrongVersions: string[] } = () => findNodeLlamaCpp(),
): EngineModule {
  const { found, wrongVersions: wrong } = find();
  if (found) return found;
  throw new EngineError(
    'missing',
    wrong.length
      ? `${ENGINE_MISSING_MESSAGE} (found ${wrong[0]}, which is not ${NODE_LLAMA_CPP_VERSION})`
      : ENGINE_MISSING_MESSAGE,
  );
}
