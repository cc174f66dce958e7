import { closeSync, existsSync, openSync, truncateSync, writeFileSync, mkdirSync, fsyncSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { DataError, UsageError } from '../core/errors.ts';
import { stableStringify } from '../core/hash.ts';
import { readFileChecked } from '../core/nofollow.ts';

/**
 * The optimizer's append-only log, `log.jsonl`: a header with the run's configuration, then one line per rollout
 * (written and fsynced the moment it finishes), per reflection call, and per decision (candidate made, minibatch
 * verdict, validation). It is the run's memory: a resumed run replays the same deterministic search and takes
 * every rollout and reflection it finds here instead of asking the models again, so a kill at any point loses
 * nothing finished and runs nothing twice. A torn last line (a kill mid-write) is cut off on resume.
 */

const TokensSchema = z.object({ prompt: z.number(), completion: z.number(), total: z.number() });

const Header = z.object({
  type: z.literal('header'),
  version: z.literal(1),
  config: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});

export const RolloutLine = z.object({
  type: z.literal('rollout'),
  key: z.string(),
  candidate: z.string(),
  sha: z.string(),
  row: z.string(),
  purpose: z.string(),
  score: z.number(),
  error: z.string().nullable(),
  tokens: TokensSchema,
  /** Counted in the budget (held-out evaluations after the search are not). */
  budgeted: z.boolean(),
  feedback: z.record(z.string(), z.unknown()),
  at: z.string(),
});
export type RolloutLine = z.infer<typeof RolloutLine>;

export const ReflectionLine = z.object({
  type: z.literal('reflection'),
  key: z.string(),
  prompt_sha: z.string(),
  prompt: z.string(),
  answer: z.string(),
  tokens: TokensSchema,
  at: z.string(),
});
export type ReflectionLine = z.infer<typeof ReflectionLine>;

export const EventLine = z.object({
  type: z.literal('event'),
  key: z.string(),
  kind: z.string(),
  data: z.record(z.string(), z.unknown()),
  at: z.string(),
});
export type EventLine = z.infer<typeof EventLine>;

const Line = z.discriminatedUnion('type', [Header, RolloutLine, ReflectionLine, EventLine]);
type Line = z.infer<typeof Line>;

/** Configuration keys that may change between a run and its resumption. */
const MAY_CHANGE = new Set(['budget', 'concurrency', 'heldout', 'off_grid']);

export class OptimizeLog {
  private readonly keys = new Set<string>();
  private readonly rollouts = new Map<string, RolloutLine>();
  private readonly reflections = new Map<string, ReflectionLine>();
  private readonly events: EventLine[] = [];
  private readonly fd: number;

  private constructor(
    readonly path: string,
    readonly resumed: boolean,
    lines: Line[],
    private readonly durable: boolean,
  ) {
    for (const l of lines) this.index(l);
    this.fd = openSync(path, 'a');
  }

  /**
   * Open the log of a run: fresh (an earlier log is replaced) or resumed (its header must match `config` except
   * for the budget and concurrency; a resumed run may be given a larger budget to go on).
   */
  static open(
    path: string,
    config: Record<string, unknown>,
    resume: boolean,
    opts: { durable?: boolean } = {},
  ): OptimizeLog {
    mkdirSync(dirname(path), { recursive: true });
    const durable = opts.durable ?? true;
    if (!resume || !existsSync(path)) {
      writeFileSync(
        path,
        JSON.stringify({ type: 'header', version: 1, config, created_at: new Date().toISOString() }) + '\n',
      );
      return new OptimizeLog(path, false, [], durable);
    }
    const lines = readLog(path);
    const header = lines[0];
    if (!header || header.type !== 'header')
      throw new DataError(path, 'line 1', 'type', 'not an optimizer log (no header)');
    const diff = firstDifference(header.config, config);
    if (diff) {
      throw new UsageError(
        `toolgauge optimize: --resume: ${path} was written with ${diff.key}=${JSON.stringify(diff.was)}, this run has ${JSON.stringify(diff.now)}; use the same flags, or another --out`,
      );
    }
    return new OptimizeLog(path, true, lines.slice(1), durable);
  }

  private index(l: Line): void {
    if (l.type === 'header') return;
    if (l.type === 'rollout') {
      // A rollout that ended in a harness error informed no decision; a resumed run tries it again.
      if (l.error === null) this.rollouts.set(l.key, l);
    } else if (l.type === 'reflection') this.reflections.set(l.key, l);
    else this.events.push(l);
    if (l.type !== 'rollout' || l.error === null) this.keys.add(l.key);
  }

  rollout(key: string): RolloutLine | undefined {
    return this.rollouts.get(key);
  }

  reflection(key: string): ReflectionLine | undefined {
    return this.reflections.get(key);
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Logged decisions, in order. */
  eventLines(): readonly EventLine[] {
    return this.events;
  }

  /** Logged rollouts that count (no harness error). */
  rolloutLines(): RolloutLine[] {
    return [...this.rollouts.values()];
  }

  appendRollout(l: Omit<RolloutLine, 'type'>): void {
    if (l.error === null && this.rollouts.has(l.key))
      throw new Error(`optimize log: rollout ${l.key} is already logged`);
    this.write({ type: 'rollout', ...l });
  }

  appendReflection(l: Omit<ReflectionLine, 'type'>): void {
    if (this.reflections.has(l.key)) throw new Error(`optimize log: reflection ${l.key} is already logged`);
    this.write({ type: 'reflection', ...l });
  }

  /** A decision; written once (a replayed run makes the same decisions and does not write them again). */
  event(key: string, kind: string, data: Record<string, unknown>, now = new Date().toISOString()): void {
    if (this.keys.has(key)) return;
    this.write({ type: 'event', key, kind, data, at: now });
  }

  private write(l: Line): void {
    this.index(l);
    // One write(2) of one line: a killed process loses nothing written, and can tear at most the line being
    // written. fsync on top keeps the line through a crash of the machine (tests of the search skip it).
    writeSync(this.fd, JSON.stringify(l) + '\n');
    if (this.durable) fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Read a log; a torn last line is cut off the file (so the next append starts on a fresh line). */
export function readLog(path: string): Line[] {
  // The log is ours, but its folder is the user's: a FIFO or device in its place is refused, never read or truncated.
  const buf = readFileChecked(path, { maxBytes: 2 ** 30 });
  if (!buf) return [];
  const end = buf.lastIndexOf(0x0a) + 1;
  if (end < buf.length) truncateSync(path, end);
  const text = buf.subarray(0, end).toString('utf8');
  const out: Line[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new DataError(path, `line ${i + 1}`, undefined, 'not valid JSON (the log was edited or corrupted)');
    }
    const r = Line.safeParse(json);
    if (!r.success)
      throw new DataError(
        path,
        `line ${i + 1}`,
        r.error.issues[0]?.path.join('.'),
        r.error.issues[0]?.message ?? 'invalid line',
      );
    out.push(r.data);
  });
  return out;
}

function firstDifference(
  was: Record<string, unknown>,
  now: Record<string, unknown>,
): { key: string; was: unknown; now: unknown } | null {
  for (const key of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort()) {
    if (MAY_CHANGE.has(key)) continue;
    if (stableStringify(was[key] ?? null) !== stableStringify(now[key] ?? null))
      return { key, was: was[key], now: now[key] };
  }
  return null;
}
