import { join } from 'node:path';
import { redactUrl, type RunConfig } from '../core/config.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { readTextChecked, refuseLink } from '../core/nofollow.ts';
import { suiteGeneration } from './sampling.ts';
import type { AnySuite, DatasetInfo } from './types.ts';

/**
 * A run's fingerprint: what must be the same for two runs' instances to belong in one summary — the suite, the model,
 * the endpoint, the dataset's sha256, the prompt template, the generation settings, and the suite's config keys that
 * change results (its aggregator's `comparableOn`, the keys `report --compare` insists on, plus its `fingerprintOn`).
 * Concurrency, retries, limits and the cache do not change an instance's result and are left out, so a resume may
 * change them. Stored per suite in the output directory's `run.json` when a run starts; `--resume` and a `-t`
 * re-run compare against it and refuse on the first field that differs.
 */
export const RUN_FILE = 'run.json';

export type Fingerprint = Record<string, unknown>;

export function runFingerprint(
  def: AnySuite,
  run: RunConfig,
  settings: unknown,
  dataset: DatasetInfo | null,
): Fingerprint {
  const fp: Fingerprint = {
    suite: def.name,
    model: run.model,
    // A gguf: run's server listens on a new port each time: the engine and the file identify it instead.
    endpoint: run.usesSimulator ? 'built-in simulator' : run.engine ? 'local engine' : (redactUrl(run.baseUrl) ?? null),
    ...(run.engine?.facts
      ? {
          'engine.name': run.engine.facts.engine,
          'engine.llama_cpp_build': run.engine.facts.llama_cpp_build,
          'engine.file_sha256': run.engine.facts.sha256,
          'engine.tensor_type': run.engine.facts.tensor_type,
          'engine.chat_template_sha256': run.engine.facts.chat_template_sha256,
        }
      : {}),
    dataset_sha256: dataset?.sha256 ?? null,
    template_sha256: def.templateSha256?.(run, settings) ?? null,
  };
  // The header's generation block, as the kit writes it: the sampling plan (its values, seed and seed rule) and facts.
  for (const [k, v] of Object.entries(suiteGeneration(def, run, settings))) fp[`generation.${k}`] = v ?? null;
  const config = def.config(run, settings);
  for (const k of new Set([...(def.aggregator.comparableOn ?? []), ...(def.fingerprintOn ?? [])]))
    fp[`config.${k}`] = config[k] ?? null;
  // Through JSON, as it is stored: `undefined` and key order never count as a difference.
  return JSON.parse(JSON.stringify(fp)) as Fingerprint;
}

/** The first field whose values differ, with both values as JSON; null when the fingerprints agree. */
export function fingerprintDiff(
  stored: Fingerprint,
  current: Fingerprint,
): { field: string; stored: string; current: string } | null {
  for (const field of new Set([...Object.keys(stored), ...Object.keys(current)])) {
    const a = JSON.stringify(stored[field] ?? null);
    const b = JSON.stringify(current[field] ?? null);
    if (a !== b) return { field, stored: a, current: b };
  }
  return null;
}

/** A `run.json` that is not the kit's (torn, edited): nothing in it can say which run the directory holds. */
export class RunFileInvalid extends Error {
  override name = 'RunFileInvalid';
}

interface RunFile {
  suites: Record<string, { run_id: string; started_at: string; fingerprint: Fingerprint }>;
}

/** The fingerprint stored for `suite` in `dir`, or null when none is. */
export function storedFingerprint(dir: string, suite: string): Fingerprint | null {
  return readRunFile(dir).suites[suite]?.fingerprint ?? null;
}

export function writeFingerprint(dir: string, suite: string, runId: string, fp: Fingerprint): void {
  const file = readRunFile(dir);
  file.suites[suite] = { run_id: runId, started_at: new Date().toISOString(), fingerprint: fp };
  writeFileAtomic(join(dir, RUN_FILE), JSON.stringify(file, null, 2) + '\n', dir);
}

function readRunFile(dir: string): RunFile {
  const path = join(dir, RUN_FILE);
  refuseLink(path);
  const text = readTextChecked(path, { root: dir });
  if (text === null) return { suites: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new RunFileInvalid(`${path}: not valid JSON (${(err as Error).message})`);
  }
  const suites = (raw as Partial<RunFile> | null)?.suites;
  if (!suites || typeof suites !== 'object') throw new RunFileInvalid(`${path}: field suites: missing`);
  return { suites };
}
