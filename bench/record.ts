/**
 * Bench records: the figures a benchmark measured, with when, on which commit and on what machine, committed under
 * bench/records/<name>.json. Figures in the documentation (docs/benchmarks.md) are written from them and marked
 * `<!-- bench:NAME.KEY -->`;
 * tests/hygiene/bench-figures.test.ts fails when a marked figure has no record or differs from it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { z } from 'zod';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { fromRoot } from '../harness/core/paths.ts';

export const BenchRecord = z.object({
  bench: z.string().min(1),
  /** how it was measured: the command line, flags included */
  command: z.string().min(1).optional(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}T/),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  /** uncommitted changes to tracked files when measured */
  dirty: z.boolean(),
  machine: z.object({ cpu: z.string(), cpus: z.number().int(), node: z.string(), load1: z.number() }),
  figures: z.record(z.string(), z.number()),
  /** what the figures were measured with, where a command line does not say it (e.g. a reference's interpreter) */
  setup: z.record(z.string(), z.string()).optional(),
});
export type BenchRecord = z.infer<typeof BenchRecord>;

export const recordPath = (name: string) => fromRoot('bench', 'records', `${name}.json`);

/** How the documentation prints a figure: rounded to an integer, with thousands separators. */
export const formatFigure = (x: number) => Math.round(x).toLocaleString('en-US');

const git = (args: string[]) => execFileSync('git', args, { cwd: fromRoot(), encoding: 'utf8' }).trim();

export function writeRecord(
  bench: string,
  figures: Record<string, number>,
  command?: string,
  setup?: Record<string, string>,
): BenchRecord {
  const rec = BenchRecord.parse({
    bench,
    ...(command ? { command } : {}),
    date: new Date().toISOString(),
    commit: git(['rev-parse', 'HEAD']),
    dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cpus: cpus().length,
      node: process.version,
      load1: Math.round(loadavg()[0]! * 100) / 100,
    },
    figures,
    ...(setup ? { setup } : {}),
  });
  writeFileAtomic(recordPath(bench), JSON.stringify(rec, null, 2) + '\n');
  return rec;
}

export function readRecord(bench: string): BenchRecord {
  const file = recordPath(bench);
  const r = BenchRecord.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw new Error(`${file}: ${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`);
  return r.data;
}
