/**
 * Progress of an eval run for a log, where no terminal redraws Vitest's own lines (stderr is a file or a pipe: CI,
 * `nohup`, `2> run.log`): one line every `everyCases` finished cases, or when `intervalMs` has passed since the last
 * line. Pure: the caller gives the clock and prints what it returns.
 */
export interface ProgressOptions {
  /** A line after this many finished cases. */
  everyCases: number;
  /** A line when this long has passed since the last one (checked on each case and on the caller's timer). */
  intervalMs: number;
  now: () => number;
}

/** How many cases a line is printed after, and how often at the least (docs/eval.md). */
export const PROGRESS_EVERY_CASES = 25;
export const PROGRESS_INTERVAL_MS = 10_000;

export class ProgressMeter {
  private total = 0;
  private done = 0;
  private failed = 0;
  private errors = 0;
  private readonly startedAt: number;
  private lastLineAt: number;
  private lastLineDone = 0;

  constructor(private readonly o: ProgressOptions) {
    this.startedAt = o.now();
    this.lastLineAt = this.startedAt;
  }

  /** Cases collected (a module's tests): the total grows as modules are collected. */
  planned(n: number): void {
    this.total += n;
  }

  /** A case finished: its line when one is due, else null. */
  finished(outcome: 'passed' | 'failed' | 'error' | 'skipped'): string | null {
    this.done++;
    if (outcome === 'failed') this.failed++;
    if (outcome === 'error') this.errors++;
    if (this.done - this.lastLineDone >= this.o.everyCases) return this.line();
    return this.tick();
  }

  /** The line when `intervalMs` has passed since the last one and something finished or is still running. */
  tick(): string | null {
    if (this.total === 0 || this.o.now() - this.lastLineAt < this.o.intervalMs) return null;
    return this.line();
  }

  private line(): string {
    const now = this.o.now();
    this.lastLineAt = now;
    this.lastLineDone = this.done;
    const total = Math.max(this.total, this.done);
    const left = total - this.done;
    const eta = this.done === 0 ? '?' : duration(((now - this.startedAt) / this.done) * left);
    return `progress: ${this.done}/${total} cases done, ${this.failed} failed, ${this.errors} errors, ETA ${eta}`;
  }
}

/** 75_000 → "1m15s"; 4_000 → "4s"; 3_700_000 → "1h01m". */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
