import { UsageError } from '../core/errors.ts';
import type { Shard } from '../kit/flags/model-flags.ts';

/**
 * `--shard i/n` deals a run's test files over n processes (Vitest's rule: whole files, never a file's cases), and
 * Vitest stops with a stack trace when n exceeds the files it resolved. `toolgauge eval` knows its files before
 * Vitest starts — each eval file, or with `--parts N` each of its N part files (docs/eval.md#sharding) — so a count
 * they cannot fill is a usage error naming both numbers and the `--parts` that would fill it.
 */
export function checkShardFill(shard: Shard | undefined, evalFiles: readonly string[], parts: number): void {
  if (shard === undefined) return;
  const { count } = shard;
  const evals = new Set(evalFiles).size;
  const files = evals * parts;
  if (count <= files) return;
  const have =
    parts > 1 ? `${files} part files (${evals} × --parts ${parts})` : `${files} eval file${files > 1 ? 's' : ''}`;
  throw new UsageError(
    `toolgauge eval: --shard ${shard.text} needs at least ${count} test files and the run has ${have}; ` +
      `--parts ${Math.ceil(count / evals)} splits each eval file's cases into that many files`,
  );
}
