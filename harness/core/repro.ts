import { z } from 'zod';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, platform, release, totalmem, arch } from 'node:os';
import { redactUrl, type RunConfig } from './config.ts';
import { EngineFacts } from './engine-facts.ts';
import { ModelProvenance } from './provenance.ts';
import { fromRoot, MODULE_EXT, PACKAGE_JSON } from './paths.ts';

/** The reproducibility header every summary.json carries (docs/outputs.md). Extra fields from suites pass through. */
export const ReproHeader = z
  .object({
    toolgauge_version: z.string(),
    git_commit: z.string().nullable(),
    git_dirty: z.boolean().nullable(),
    node: z.string(),
    os: z.string(),
    cpu: z.string(),
    cpus: z.number(),
    ram_gib: z.number(),
    endpoint: z.string(),
    model: z.string(),
    /** The model's identity from every source the run had (harness/core/provenance.ts). */
    model_provenance: ModelProvenance.optional(),
    simulated: z.boolean(),
    /** A gguf: run: the local engine and the file it ran (harness/core/engine-facts.ts). */
    engine: EngineFacts.optional(),
    generation: z.record(z.string(), z.unknown()),
    dataset: z.object({ file: z.string(), sha256: z.string(), origin: z.string().optional() }).nullable(),
    template_sha256: z.string().nullable(),
    injected_date: z.string(),
    seed: z.number(),
    trials: z.number(),
    started_at: z.string(),
    ended_at: z.string(),
  })
  .passthrough();
export type ReproHeader = z.infer<typeof ReproHeader>;

export function toolgaugeVersion(): string {
  try {
    return (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: fromRoot(), stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

const gitAsync = (args: string[]) =>
  new Promise<string | null>((res) =>
    execFile('git', args, { cwd: fromRoot(), timeout: 5000 }, (err, out) => res(err ? null : String(out).trim())),
  );

type GitState = { commit: string | null; status: string | null };

/** One `git status` answers both: its `# branch.oid` header is the commit, its other lines the tracked changes. */
const STATUS_ARGS = ['status', '--porcelain=v2', '--branch', '--untracked-files=no'];

/**
 * The commit and the tracked changes in `git status --porcelain=v2 --branch` output; a repository without a commit
 * (`(initial)`) or output without the header has no commit, and then no status either.
 */
export function parseGitStatus(out: string | null): GitState {
  if (out === null) return { commit: null, status: null };
  const lines = out.split('\n').filter((l) => l.length > 0);
  const oid = lines
    .find((l) => l.startsWith('# branch.oid '))
    ?.slice('# branch.oid '.length)
    .trim();
  const commit = oid && /^[0-9a-f]{40,64}$/.test(oid) ? oid : null;
  return { commit, status: commit ? lines.filter((l) => !l.startsWith('#')).join('\n') : null };
}

// The state of the checkout this process loaded its code from, read once per process (in the background while a run
// starts, or at the first header): every header of the process describes the same code, and git is not started again
// for each (a test process writes hundreds of headers).
let cached: GitState | undefined;

/** The checkout's commit and status, read in the background while a run starts (the header then costs no git calls at the end). */
export function prefetchGitState(): void {
  if (!FROM_CHECKOUT || cached) return;
  void gitAsync(STATUS_ARGS).then((out) => {
    cached ??= parseGitStatus(out);
  });
}

/**
 * Whether toolgauge runs from its sources. An installed package (built JavaScript) has no checkout of its own: its
 * version identifies it, and git would only find the project it is installed in.
 */
const FROM_CHECKOUT = MODULE_EXT === '.ts';

function gitState(): GitState {
  if (!FROM_CHECKOUT) return { commit: null, status: null };
  cached ??= parseGitStatus(git(STATUS_ARGS));
  return cached;
}

export function reproHeader(
  cfg: RunConfig,
  extra: {
    dataset?: ReproHeader['dataset'];
    templateSha256?: string | null;
    generation?: Record<string, unknown>;
    startedAt: Date;
    endedAt: Date;
  },
): ReproHeader {
  return {
    ...machineFacts(),
    endpoint: cfg.usesSimulator ? 'built-in simulator (127.0.0.1)' : (redactUrl(cfg.baseUrl) ?? ''),
    model: cfg.model,
    ...(cfg.provenance && Object.keys(cfg.provenance).length ? { model_provenance: cfg.provenance } : {}),
    // What answered: the simulator this run started, an endpoint that says it is the simulator, or a sim: policy.
    simulated: cfg.usesSimulator || cfg.endpointSimulated === true || cfg.model.startsWith('sim:'),
    ...(cfg.engine?.facts ? { engine: cfg.engine.facts } : {}),
    generation: extra.generation ?? { temperature: cfg.temperature, max_tokens: cfg.maxTokens ?? null, seed: cfg.seed },
    dataset: extra.dataset ?? null,
    template_sha256: extra.templateSha256 ?? null,
    injected_date: cfg.injectedDate,
    seed: cfg.seed,
    trials: cfg.trials,
    started_at: extra.startedAt.toISOString(),
    ended_at: extra.endedAt.toISOString(),
  };
}

/**
 * The header of a summary scored from another runner's outputs (`bfcl rescore`): toolgauge and the machine that
 * scored them, the model as that runner named it, and no generation settings of ours (nothing was generated here).
 */
export function rescoreHeader(o: {
  model: string;
  source: string;
  dataset: ReproHeader['dataset'];
  seed: number;
  startedAt: Date;
  endedAt: Date;
}): ReproHeader {
  return {
    ...machineFacts(),
    endpoint: `none (rescored ${o.source})`,
    model: o.model,
    simulated: false,
    generation: {},
    dataset: o.dataset,
    template_sha256: null,
    injected_date: '',
    seed: o.seed,
    trials: 1,
    started_at: o.startedAt.toISOString(),
    ended_at: o.endedAt.toISOString(),
  };
}

function machineFacts() {
  const { commit, status } = gitState();
  return {
    toolgauge_version: toolgaugeVersion(),
    git_commit: commit,
    git_dirty: status === null ? null : status.length > 0,
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: cpus().length,
    ram_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  };
}
