// `toolgauge maze --models a,b,c` / `--lineup FILE`: one Maze run per model, each in its own
// `<results>/<model>/<fc|mcp>/` folder, then paired comparisons between the models that completed
// (harness/maze/batch-compare.ts) in `<results>/reports/`. A model whose run fails — its endpoint does not answer,
// or any instance ends in a harness error — is retried once with `--resume` (the instances it finished are kept,
// the others run again); if it fails again its folder is kept for a later `--resume` and it is reported as
// FAILED, never as a result. See docs/maze-runs.md.

import { existsSync } from 'node:fs';
import { FileRefused, readTextChecked } from '../core/nofollow.ts';
import { join, resolve } from 'node:path';
import { EnvSchema, parseEnv } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { readJournal } from '../kit/journal.ts';
import { compareBatch, batchMarkdown, type BatchModel } from './batch-compare.ts';
import { agentFolder, BUILTIN_AGENT_TYPES } from './config.ts';
import type { MazeMeta } from './meta.ts';
import { modelDirName } from './output.ts';
import { parseLineup } from '../calls/lineup/lineup.ts';
import { API_KEY_ENV } from '../calls/lineup/lineup-limits.ts';

/** The flags the batch reads; the rest go to every model's run unchanged. */
const BATCH_FLAGS = ['--models', '--lineup', '--allow-env', '--parallel-models'] as const;

export interface BatchEntry {
  label: string;
  model: string;
  baseUrl?: string;
  /** The variable holding this entry's key (a lineup's `api_key_env`). */
  apiKeyEnv?: string;
}

/** A flag's value (`--flag V` or `--flag=V`), the last one given; undefined when absent. */
export function flagValue(argv: readonly string[], flag: string): string | undefined {
  let v: string | undefined;
  argv.forEach((a, i) => {
    if (a === flag) v = argv[i + 1];
    else if (a.startsWith(`${flag}=`)) v = a.slice(flag.length + 1);
  });
  return v;
}

/** argv without the given flags and their values. */
export function withoutFlags(argv: readonly string[], flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (flags.includes(a)) {
      i++;
      continue;
    }
    if (flags.some((f) => a.startsWith(`${f}=`))) continue;
    out.push(a);
  }
  return out;
}

export const isBatch = (argv: readonly string[]) =>
  BATCH_FLAGS.slice(0, 2).some((f) => flagValue(argv, f) !== undefined);

/** The batch's models from `--models a,b,c` or `--lineup FILE` (labels unique; errors name the file, entry and field). */
export function batchEntries(argv: readonly string[], env: NodeJS.ProcessEnv): BatchEntry[] {
  const models = flagValue(argv, '--models');
  const lineup = flagValue(argv, '--lineup');
  if (models !== undefined && lineup !== undefined)
    throw new UsageError('toolgauge maze: give --models or --lineup, not both');
  if (flagValue(argv, '--model') !== undefined)
    throw new UsageError(
      'toolgauge maze: --model names one model; a batch names its models with --models a,b,c or --lineup FILE',
    );
  let entries: BatchEntry[];
  if (models !== undefined) {
    const ids = models
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (!ids.length) throw new UsageError('toolgauge maze: --models: no model named');
    entries = ids.map((m) => ({ label: m, model: m }));
  } else {
    if (!lineup || !existsSync(lineup))
      throw new UsageError(`toolgauge maze: --lineup '${lineup ?? ''}' does not exist`);
    let l;
    try {
      l = parseLineup(readTextChecked(lineup) ?? '', lineup);
    } catch (err) {
      throw new UsageError(`toolgauge maze: ${(err as Error).message}`);
    }
    const allowed = (flagValue(argv, '--allow-env') ?? env.TOOLGAUGE_MAZE_ALLOW_ENV ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    entries = l.models.map((m, i) => {
      if (m.api_key_env && !API_KEY_ENV.test(m.api_key_env) && !allowed.includes(m.api_key_env)) {
        throw new UsageError(
          `toolgauge maze: --lineup models[${i}].api_key_env: ${m.api_key_env} is not an API key variable (names ending in _API_KEY are allowed; allow another with --allow-env ${m.api_key_env})`,
        );
      }
      return {
        label: m.label,
        model: m.model,
        ...(m.base_url ? { baseUrl: m.base_url } : {}),
        ...(m.api_key_env ? { apiKeyEnv: m.api_key_env } : {}),
      };
    });
  }
  const dirs = entries.map((e) => modelDirName(e.label));
  dirs.forEach((d, i) => {
    if (dirs.indexOf(d) !== i)
      throw new UsageError(
        `toolgauge maze: models '${entries[dirs.indexOf(d)]!.label}' and '${entries[i]!.label}' would share the folder ${d}`,
      );
  });
  return entries;
}

/** The agent folder the batch's runs write to (`fc`, `mcp`, or a user agent's name), from the flags as given. */
function folderOf(argv: readonly string[]): string {
  const agent = flagValue(argv, '--agent');
  const type = flagValue(argv, '--agent-type') ?? (agent === 'prompt' ? 'mcp' : 'openai');
  return agentFolder({
    agent: type === 'mcp' ? 'prompt' : 'fc',
    agentType: BUILTIN_AGENT_TYPES.includes(type) || flagValue(argv, '--agent-module') ? type : 'openai',
  });
}

interface SummaryLike {
  counts?: { runs?: number; errors?: number };
  gate?: { passed?: boolean } | null;
  header?: { notice?: string };
  notice?: string;
}

/** What a finished attempt left: complete (a summary, no harness error) or failed with the reason. */
export function judgeAttempt(
  dir: string,
  code: number | null,
  thrown: string | null,
): { ok: boolean; reason?: string; runs?: number; gate?: boolean; notice?: string } {
  if (thrown) return { ok: false, reason: thrown };
  const path = join(dir, 'summary.json');
  if (!existsSync(path)) return { ok: false, reason: `no summary.json (exit ${code})` };
  let s: SummaryLike;
  try {
    s = JSON.parse(readTextChecked(path, { root: dir }) ?? '') as SummaryLike;
  } catch (err) {
    if (err instanceof FileRefused) return { ok: false, reason: err.message };
    return { ok: false, reason: 'summary.json does not parse' };
  }
  const errors = s.counts?.errors ?? 0;
  const gate = s.gate ? s.gate.passed !== false : undefined;
  const notice = typeof s.notice === 'string' ? s.notice : undefined;
  if (errors > 0)
    return {
      ok: false,
      reason: `${errors} of ${s.counts?.runs ?? '?'} runs ended in a harness error`,
      ...(s.counts?.runs !== undefined ? { runs: s.counts.runs } : {}),
    };
  if (code !== 0 && code !== 1) return { ok: false, reason: `exit ${code}` };
  return {
    ok: true,
    ...(s.counts?.runs !== undefined ? { runs: s.counts.runs } : {}),
    ...(gate !== undefined ? { gate } : {}),
    ...(notice ? { notice } : {}),
  };
}

/**
 * `--parallel-models N`: how many models' runs are in flight at once (ToolMaze's batch runner runs its models
 * concurrently). Default: the run's `--concurrency`, at most the number of models. Each run keeps its own
 * concurrency, so the endpoint sees up to N × that many requests.
 */
export function parallelModels(argv: readonly string[], env: NodeJS.ProcessEnv, models: number): number {
  const raw = flagValue(argv, '--parallel-models');
  if (raw !== undefined && !/^[1-9]\d*$/.test(raw))
    throw new UsageError(`toolgauge maze: --parallel-models must be a whole number >= 1 (got '${raw}')`);
  const concurrency = parseEnv(EnvSchema.pick({ TOOLGAUGE_CONCURRENCY: true }), {
    TOOLGAUGE_CONCURRENCY: flagValue(argv, '--concurrency') ?? env.TOOLGAUGE_CONCURRENCY,
  }).TOOLGAUGE_CONCURRENCY;
  return Math.max(1, Math.min(models, raw !== undefined ? Number(raw) : concurrency));
}

/** `fn` over `items`, at most `limit` at a time; results in the items' order. The first error stops new starts. */
async function inPool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** An endpoint that did not answer the pre-run check is the model's failure, not a usage error of the batch. */
const isEndpointRefusal = (message: string) => /endpoint .* (is not usable|does not serve)/.test(message);

/**
 * Run the batch: `runOne(argv, env)` is the single-model `toolgauge maze`. Each model's run gets its own copy of the
 * environment (its key), `--model`, `--base-url` (a lineup entry's), `--out-dir <results>/<model>/<folder>`; this
 * process's environment is never written.
 */
export async function runMazeBatch(
  argv: readonly string[],
  runOne: (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>,
  baseEnv: NodeJS.ProcessEnv = {},
): Promise<number> {
  const entries = batchEntries(argv, baseEnv);
  const rest = withoutFlags(argv, [...BATCH_FLAGS, '--out-dir']);
  const root = resolve(flagValue(argv, '--out-dir') ?? 'results');
  const folder = folderOf(argv);
  const parallel = parallelModels(argv, baseEnv, entries.length);
  // One model's run and its one retry; the batch runs `parallel` of them at a time, results in the batch's order.
  const runEntry = async (e: BatchEntry): Promise<{ model: BatchModel; notice: string | undefined }> => {
    const dir = join(root, modelDirName(e.label), folder);
    const args = [
      ...withoutFlags(rest, e.baseUrl ? ['--base-url'] : []),
      '--model',
      e.model,
      ...(e.baseUrl ? ['--base-url', e.baseUrl] : []),
      '--out-dir',
      dir,
    ];
    let attempts = 0;
    let verdict: ReturnType<typeof judgeAttempt> = { ok: false };
    // First attempt as asked; on failure, once more with --resume (ToolMaze retries a failed model once).
    for (const resume of [args.includes('--resume'), true]) {
      attempts++;
      const env: NodeJS.ProcessEnv = { ...baseEnv };
      if (e.apiKeyEnv) {
        if (baseEnv[e.apiKeyEnv]) env.OPENAI_API_KEY = baseEnv[e.apiKeyEnv];
        else delete env.OPENAI_API_KEY;
      } else if (e.baseUrl) delete env.OPENAI_API_KEY; // the user's key belongs to the endpoint the user named
      let code: number | null = null;
      let thrown: string | null = null;
      try {
        process.stdout.write(
          `\n── maze batch: ${e.label} (attempt ${attempts}${resume && attempts > 1 ? ', --resume' : ''}) → ${dir}\n`,
        );
        code = await runOne(resume && !args.includes('--resume') ? [...args, '--resume'] : args, env);
      } catch (err) {
        const msg = (err as Error).message;
        if (!(err instanceof UsageError) || !isEndpointRefusal(msg)) throw err;
        thrown = msg;
      }
      verdict = judgeAttempt(dir, code, thrown);
      if (verdict.ok) break;
      process.stderr.write(
        `toolgauge maze: ${e.label}: ${verdict.reason}${attempts < 2 ? ' — retrying once with --resume' : ' — kept for --resume, not a result'}\n`,
      );
    }
    return {
      notice: verdict.notice,
      model: {
        label: e.label,
        model: e.model,
        dir,
        status: verdict.ok ? 'complete' : 'failed',
        attempts,
        ...(verdict.reason && !verdict.ok ? { reason: verdict.reason } : {}),
        ...(verdict.gate !== undefined ? { gate: verdict.gate } : {}),
        ...(verdict.runs !== undefined ? { runs: verdict.runs } : {}),
      },
    };
  };
  const results = await inPool(entries, parallel, runEntry);
  const models = results.map((r) => r.model);
  const notice = results.find((r) => r.notice)?.notice;
  const complete = models.filter((m) => m.status === 'complete');
  // The run's seed as every run of the batch parsed it (the one parser of harness/core/config.ts).
  const seed = parseEnv(EnvSchema.pick({ TOOLGAUGE_SEED: true }), {
    TOOLGAUGE_SEED: flagValue(argv, '--seed') ?? baseEnv.TOOLGAUGE_SEED,
  }).TOOLGAUGE_SEED;
  const comparison = compareBatch(
    complete.map((m) => ({ label: m.label, metas: [...readJournal<MazeMeta>(m.dir, 'maze').values()] })),
    { seed },
  );
  const summary = { suite: 'maze', kind: 'batch', agent: folder, models, comparison, ...(notice ? { notice } : {}) };
  const base = join(root, 'reports', `maze_batch_${folder}`);
  writeFileAtomic(`${base}.json`, `${JSON.stringify(summary, null, 2)}\n`);
  const md = batchMarkdown({ agent: folder, models, comparison, ...(notice ? { notice } : {}) });
  writeFileAtomic(`${base}.md`, md);
  process.stdout.write(`\n${md}\nbatch report: ${base}.md\n`);
  return models.some((m) => m.status === 'failed' || m.gate === false) ? 1 : 0;
}
