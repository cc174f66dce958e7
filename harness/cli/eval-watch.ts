import { relative } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { escapeTerminal } from '../core/terminal.ts';
import { keepRun } from '../kit/run-history.ts';
import type { RunPlan } from '../kit/plan.ts';
import type { OpenedRun } from '../launch/open-run.ts';
import type { InlineRun } from '../vitest/run.ts';
import { watchEvalSuites } from '../vitest/watch.ts';

/** The flags a watched run cannot take: each watched run is one fresh, whole, unsharded run with Vitest's output. */
export const NOT_WITH_WATCH = ['resume', 'shard', 'blob-dir', 'merge-reports', 'json', 'parts'] as const;

/** `--watch` with a flag it cannot take is a usage error naming the flag. */
export function checkWatchFlags(values: Record<string, unknown>): void {
  const clash = NOT_WITH_WATCH.find((f) => values[f] !== undefined && values[f] !== false);
  if (clash) throw new UsageError(`toolgauge eval: --watch cannot be combined with --${clash}`);
}

/**
 * `toolgauge eval FILE --watch`: run the eval files, then again whenever one of them or a module it imports changes,
 * until Ctrl-C (SIGINT, SIGTERM) or `signal`. Each run is opened and closed as a one-off run is; once its summaries
 * are written, each eval's output directory is kept as `<outDir>/runs/<UTC time>/` (harness/kit/run-history.ts), and
 * `onKept` is told. Returns 130 after Ctrl-C, 0 after `signal`, 2 when a re-run could not be opened.
 */
export async function runEvalWatch(o: {
  files: string[];
  root: string;
  plan: RunPlan;
  open: (plan: RunPlan) => Promise<OpenedRun>;
  config: (inline: InlineRun) => object;
  filter?: string | undefined;
  /** Filled by the toolgauge reporter with each run's finalized evals (its `onEnded`); emptied here after each run. */
  ended: Array<{ suite: string; outDir: string }>;
  signal?: AbortSignal | undefined;
  onKept?: (kept: { index: number; exitCode: number; dirs: string[] }) => void;
  log?: (line: string) => void;
}): Promise<number> {
  const log = o.log ?? ((line: string) => process.stderr.write(`${escapeTerminal(line)}\n`));
  const stop = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    stop.abort();
  };
  o.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  if (o.signal?.aborted) stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const code = await watchEvalSuites(o.files, {
      plan: o.plan,
      open: o.open,
      config: o.config,
      root: o.root,
      filter: o.filter,
      signal: stop.signal,
      onRun: ({ index, exitCode }) => {
        const at = new Date();
        const dirs = o.ended.splice(0).map((e) => keepRun(e.outDir, at));
        for (const d of dirs) log(`toolgauge eval --watch: run ${index} kept in ${relative(o.root, d) || d}`);
        if (!stop.signal.aborted)
          log('toolgauge eval --watch: waiting for a change to the eval files or what they import; Ctrl-C to stop');
        o.onKept?.({ index, exitCode, dirs });
      },
      onOpenError: (err) => log(`toolgauge eval --watch: ${(err as Error).message}`),
    });
    return interrupted ? 130 : code === 2 ? 2 : 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
