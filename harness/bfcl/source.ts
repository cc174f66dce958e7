// Where a BFCL run's inputs come from: the data folder (`--data DIR`, else BFCL's release downloaded once into the
// Hugging Face cache), the selected cases, and — for multi-turn categories — BFCL's simulated API classes. Each is
// resolved once per process; a missing input is one UsageError that says what to pass.
import { readFileSync } from 'node:fs';
import type { RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { sha256 } from '../core/hash.ts';
import type { DatasetInfo } from '../kit/types.ts';
import { ALL_CATEGORIES, isMultiTurn, isRelevanceOrIrrelevance } from './categories.ts';
import { answerFile, dataFile, loadCategories, missingFiles, type BfclCase } from './data.ts';
import { findBfclSource } from './executor.ts';
import { BFCL_HF_REPO, ensureBfclData } from './hf.ts';
import type { BfclSettings } from './settings.ts';

export interface BfclDataSource {
  dir: string;
  /** For the report: the folder, or repo@revision (commit). */
  origin: string;
}

const dataDirs = new Map<string, Promise<BfclDataSource>>();

/** The data folder holding every selected category's files. */
export function resolveBfclData(
  run: RunConfig,
  s: Pick<BfclSettings, 'data' | 'revision' | 'categories'>,
): Promise<BfclDataSource> {
  const key = JSON.stringify([s.data, s.revision, s.categories, run.hf.home, run.hf.endpoint]);
  let p = dataDirs.get(key);
  if (!p) {
    p = (async () => {
      if (s.data) {
        const missing = missingFiles(s.data, s.categories);
        if (missing.length)
          throw new UsageError(
            `--data ${s.data} lacks ${missing.length} file(s) the selected categories need: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`,
          );
        return { dir: s.data, origin: s.data };
      }
      try {
        const got = await ensureBfclData(
          s.categories,
          { revision: s.revision, hfHome: run.hf.home, token: run.hf.token, endpoint: run.hf.endpoint },
          {},
        );
        return { dir: got.dir, origin: `${BFCL_HF_REPO}@${s.revision} (commit ${got.commit})` };
      } catch (err) {
        throw new UsageError(
          `BFCL data: ${(err as Error).message.replace(/Pass --data FILE\.?/, '')} Pass --data DIR (a folder with BFCL_v4_<category>.json and possible_answer/).`.replace(
            /\s+/g,
            ' ',
          ),
        );
      }
    })();
    dataDirs.set(key, p);
    p.catch(() => dataDirs.delete(key));
  }
  return p;
}

/** The cases a run asks for, in BFCL's order: the categories, then `--limit` per category, then `--only`. */
export function selectCases(dir: string, s: Pick<BfclSettings, 'categories' | 'limit' | 'only'>): BfclCase[] {
  let cases = loadCategories(dir, s.categories);
  if (s.limit !== undefined) {
    const seen = new Map<string, number>();
    cases = cases.filter((c) => {
      const k = (seen.get(c.category) ?? 0) + 1;
      seen.set(c.category, k);
      return k <= s.limit!;
    });
  }
  if (s.only) {
    const known = new Set(cases.map((c) => c.id));
    const unknown = s.only.filter((id) => !known.has(id));
    if (unknown.length)
      throw new UsageError(
        `--only: no case ${unknown
          .slice(0, 3)
          .map((x) => `'${x}'`)
          .join(', ')} in the selected categories (${s.categories.join(', ')})`,
      );
    const only = new Set(s.only);
    cases = cases.filter((c) => only.has(c.id));
  }
  return cases;
}

/** The data files a run reads, hashed together (the report's dataset fingerprint). */
export function datasetInfo(src: BfclDataSource, s: Pick<BfclSettings, 'categories'>): DatasetInfo {
  const order = ALL_CATEGORIES as readonly string[];
  const files = [...s.categories]
    .sort((a, b) => order.indexOf(a) - order.indexOf(b))
    .flatMap((c) => [dataFile(src.dir, c), ...(isRelevanceOrIrrelevance(c) ? [] : [answerFile(src.dir, c)])]);
  return {
    file: src.dir,
    sha256: sha256(files.map((f) => readFileSync(f, 'utf8')).join('\n')),
    origin: `BFCL v4, ${s.categories.length} categor${s.categories.length === 1 ? 'y' : 'ies'} from ${src.origin}`,
  };
}

const sources = new Map<string, Promise<string>>();

/** BFCL's simulated API classes for the multi-turn categories (a UsageError saying how to provide them). */
export function resolveBfclSource(run: RunConfig, s: Pick<BfclSettings, 'bfclSource'>): Promise<string> {
  const key = JSON.stringify([s.bfclSource, run.sandbox.pythonPath]);
  let p = sources.get(key);
  if (!p) {
    p = findBfclSource(s.bfclSource, { TOOLGAUGE_PYTHON: run.sandbox.pythonPath }).then((dir) => {
      if (!dir) {
        throw new UsageError(
          `multi-turn categories need BFCL's simulated API classes (gorilla_file_system.py …): pass --bfcl-source DIR (a BFCL checkout or its func_source_code folder)${s.bfclSource ? ` — none found under ${s.bfclSource}` : ''}, or pip install bfcl-eval for ${run.sandbox.pythonPath}`,
        );
      }
      return dir;
    });
    sources.set(key, p);
    p.catch(() => sources.delete(key));
  }
  return p;
}

export const needsExecutor = (s: Pick<BfclSettings, 'categories'>): boolean => s.categories.some(isMultiTurn);
