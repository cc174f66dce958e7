import { redactUrl, type RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { redact } from '../core/redact.ts';
import type { RunPlan } from './plan.ts';

/**
 * What a suite block records about its run, so a shard's blob report carries it and `--merge-reports` (which has no
 * run of its own: no global setup, no model) reports the run the shards made — its model, endpoint and settings —
 * instead of whatever the merging command's environment says. No key or token is kept.
 */
export interface BlobRun {
  config: Omit<RunConfig, 'apiKey' | 'hf' | 'simUrl' | 'outDir' | 'outDirHoldsEvals' | 'gate' | 'resume'>;
  settings: unknown;
}

export function blobRunOf(run: RunConfig, settings: unknown): BlobRun {
  const { apiKey: _k, hf: _h, simUrl: _s, outDir: _o, outDirHoldsEvals: _p, gate: _g, resume: _r, ...config } = run;
  return {
    config: { ...config, baseUrl: redactUrl(config.baseUrl) },
    settings: redactDeep(JSON.parse(JSON.stringify(settings ?? null)) as unknown),
  };
}

/** Every string of a JSON value through the redactor (a suite's settings are data; a key must not reach a blob). */
function redactDeep(v: unknown): unknown {
  if (typeof v === 'string') return redact(v);
  if (Array.isArray(v)) return v.map(redactDeep);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactDeep(x)]));
  return v;
}

/** The fields in which two shards of one run may not differ (timeouts, concurrency, caches may). */
const SAME_RUN: ReadonlyArray<keyof BlobRun['config']> = [
  'model',
  'baseUrl',
  'usesSimulator',
  'seed',
  'trials',
  'temperature',
  'maxTokens',
  'injectedDate',
  'maxToolCallsPerTurn',
];

/**
 * The configuration of a merged run from its blobs: every suite block's recorded run must agree (else a usage error
 * naming what differs — shards of different runs never make one report); the merge command keeps only its own
 * output directory (and how its evals' folders lie in it), gate and key. Blobs without a record (older ones) leave the configuration as parsed.
 */
export function runFromBlobs(
  kc: RunPlan,
  blocks: ReadonlyArray<{ suite: string; dataset: string | null; run: BlobRun | undefined }>,
): RunPlan {
  const recorded = blocks.filter((b): b is { suite: string; dataset: string | null; run: BlobRun } => !!b.run);
  if (!recorded.length) return kc;
  const differ = (what: string, values: readonly unknown[]) => {
    const distinct = [...new Set(values.map((v) => JSON.stringify(v ?? null)))];
    if (distinct.length > 1)
      throw new UsageError(
        `toolgauge: the blob reports come from different runs (${what}: ${distinct.slice(0, 3).join(' vs ')}); merge the shards of one run only`,
      );
  };
  // A gguf: run's shards each start their own engine on a port of its own: the engine and the file identify it.
  const same = (c: BlobRun['config'], field: (typeof SAME_RUN)[number]) =>
    field === 'baseUrl' && c.engine?.facts
      ? { engine: c.engine.facts.engine, sha256: c.engine.facts.sha256, tensor_type: c.engine.facts.tensor_type }
      : c[field];
  for (const field of SAME_RUN)
    differ(
      field,
      recorded.map((b) => same(b.run.config, field)),
    );
  for (const suite of new Set(recorded.map((b) => b.suite))) {
    const mine = recorded.filter((b) => b.suite === suite);
    differ(
      `${suite} settings`,
      mine.map((b) => b.run.settings),
    );
    differ(
      `${suite} dataset sha256`,
      mine.map((b) => b.dataset),
    );
  }
  const first = recorded[0]!.run.config;
  const suites = { ...kc.suites };
  for (const b of recorded) suites[b.suite] = { ok: true, settings: b.run.settings };
  return { ...kc, run: { ...kc.run, ...first }, suites };
}
