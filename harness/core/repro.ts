import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, platform, release, totalmem, arch } from 'node:os';
import { redactUrl, type RunConfig } from './config.ts';
import { fromRoot } from './paths.ts';

/** The reproducibility header every summary.json carries (DESIGN §3.3). */
export interface ReproHeader {
  toolgauge_version: string;
  git_commit: string | null;
  git_dirty: boolean | null;
  node: string;
  os: string;
  cpu: string;
  cpus: number;
  ram_gib: number;
  endpoint: string;
  model: string;
  simulated: boolean;
  generation: { temperature: number; max_tokens: number | null; seed: number };
  dataset: { file: string; sha256: string; origin?: string } | null;
  template_sha256: string | null;
  injected_date: string;
  seed: number;
  trials: number;
  started_at: string;
  ended_at: string;
}

export function toolgaugeVersion(): string {
  try {
    return (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: fromRoot(), stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).toString().trim();
  } catch {
    return null;
  }
}

export function reproHeader(
  cfg: RunConfig,
  extra: { dataset?: ReproHeader['dataset']; templateSha256?: string | null; startedAt: Date; endedAt: Date },
): ReproHeader {
  const commit = git(['rev-parse', 'HEAD']);
  const status = commit ? git(['status', '--porcelain', '--untracked-files=no']) : null;
  return {
    toolgauge_version: toolgaugeVersion(),
    git_commit: commit,
    git_dirty: status === null ? null : status.length > 0,
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cpus: cpus().length,
    ram_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    endpoint: cfg.usesSimulator ? 'built-in simulator (127.0.0.1)' : (redactUrl(cfg.baseUrl) ?? ''),
    model: cfg.model,
    simulated: cfg.usesSimulator || cfg.model.startsWith('sim:'),
    generation: { temperature: cfg.temperature, max_tokens: cfg.maxTokens ?? null, seed: cfg.seed },
    dataset: extra.dataset ?? null,
    template_sha256: extra.templateSha256 ?? null,
    injected_date: cfg.injectedDate,
    seed: cfg.seed,
    trials: cfg.trials,
    started_at: extra.startedAt.toISOString(),
    ended_at: extra.endedAt.toISOString(),
  };
}
