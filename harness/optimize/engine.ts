import { sha256, stableStringify } from '../core/hash.ts';
import type { OptimizeLog } from './log.ts';
import {
  addTokens,
  ZERO_TOKENS,
  type Candidate,
  type CandidateOrigin,
  type ProgressPoint,
  type ReflectionModel,
  type RolePrompts,
  type Rollout,
  type RolloutFeedback,
  type RolloutRunner,
  type Tokens,
} from './types.ts';

/** The next batch of rollouts does not fit in the budget: the search stops here. */
export class BudgetExhausted extends Error {
  override name = 'BudgetExhausted';
}

/**
 * A rollout ended in a harness error (the endpoint failed after its retries, the runner threw). The search stops
 * rather than score an endpoint failure as a wrong answer; the errored rollouts are logged, not counted, and a
 * resumed run tries them again.
 */
export class HarnessFailure extends Error {
  override name = 'HarnessFailure';
}

/** The resumed run did not make the decisions the log records (changed code or inputs): refuse to mix them. */
export class LogMismatch extends Error {
  override name = 'LogMismatch';
}

export interface EngineOptions {
  log: OptimizeLog;
  runner: RolloutRunner;
  reflector: ReflectionModel;
  /** Most rollouts the search may spend (held-out evaluations after the search are not counted). */
  budget: number;
  /** Rollouts in flight at once. */
  concurrency: number;
  /** Called after every rollout that counts (progress output). */
  onRollout?: (spent: number, budget: number) => void;
}

export interface EvaluateOptions {
  /** Counted in the budget (default). Held-out evaluations after the search are not. */
  budgeted?: boolean;
}

/**
 * What both searches share: the candidates (deduplicated by their prompts), rollouts with their budget, the
 * reflection model, validation scores and the progress curve — all through the log, so a resumed run takes what
 * is there and asks the runner only for what is not. A (candidate, row) pair is run once: asking again is free.
 */
export class Engine {
  readonly candidates: Candidate[] = [];
  private readonly bySha = new Map<string, Candidate>();
  private readonly memo = new Map<string, Rollout>();
  /** Budgeted rollouts consumed by this search (from the log or run now). */
  spent = 0;
  /** Rollouts outside the budget (held-out evaluations). */
  extra = 0;
  taskTokens: Tokens = ZERO_TOKENS;
  reflectionTokens: Tokens = ZERO_TOKENS;
  reflectionCalls = 0;
  /** Rollouts taken from the log rather than run (a resumed run). */
  replayed = 0;
  private readonly val = new Map<string, Map<string, number>>();
  readonly progress: ProgressPoint[] = [];

  constructor(readonly o: EngineOptions) {}

  get budget(): number {
    return this.o.budget;
  }

  byId(id: string): Candidate {
    const c = this.candidates.find((x) => x.id === id);
    if (!c) throw new Error(`optimize: no candidate ${id}`);
    return c;
  }

  /** A candidate for these prompts: a new one, or the existing one with the same prompts (`fresh` false). */
  candidate(
    prompts: RolePrompts,
    parents: string[],
    role: string | null,
    origin: CandidateOrigin,
    step: number,
    choice?: Record<string, number>,
  ): { candidate: Candidate; fresh: boolean } {
    const sha = promptsSha(prompts);
    const known = this.bySha.get(sha);
    if (known) return { candidate: known, fresh: false };
    const c: Candidate = {
      id: `c${this.candidates.length}`,
      prompts,
      sha,
      parents,
      role,
      origin,
      step,
      ...(choice ? { choice } : {}),
    };
    this.candidates.push(c);
    this.bySha.set(sha, c);
    this.o.log.event(`cand:${c.id}`, 'candidate', {
      id: c.id,
      sha,
      parents,
      role,
      origin,
      step,
      ...(choice ? { choice } : {}),
      prompts,
    });
    return { candidate: c, fresh: true };
  }

  private key(c: Candidate, row: string): string {
    return `r:${c.id}:${row}`;
  }

  /** Rows of `rows` this candidate has not run yet (each once). */
  missing(c: Candidate, rows: readonly string[]): string[] {
    return [...new Set(rows)].filter((r) => !this.memo.has(this.key(c, r)));
  }

  affordable(c: Candidate, rows: readonly string[]): boolean {
    return this.spent + this.missing(c, rows).length <= this.o.budget;
  }

  /**
   * The candidate's rollouts on these rows, in row order. Rows run before are free; the rest must fit in the budget
   * as a whole (else BudgetExhausted, before anything runs). Logged rollouts are taken from the log; the others run
   * `concurrency` at a time and are logged as each finishes.
   */
  async evaluate(
    c: Candidate,
    rows: readonly string[],
    purpose: string,
    opts: EvaluateOptions = {},
  ): Promise<Rollout[]> {
    const budgeted = opts.budgeted ?? true;
    const need = this.missing(c, rows);
    if (budgeted && this.spent + need.length > this.o.budget) {
      throw new BudgetExhausted(
        `${need.length} more rollouts for ${c.id} (${purpose}) do not fit: ${this.spent} of ${this.o.budget} spent`,
      );
    }
    const toRun: string[] = [];
    for (const row of need) {
      const logged = this.o.log.rollout(this.key(c, row));
      if (!logged) {
        toRun.push(row);
        continue;
      }
      if (logged.sha !== c.sha)
        throw new LogMismatch(`the log's rollout ${logged.key} was made with other prompts than ${c.id} has now`);
      this.replayed++;
      this.take(
        {
          candidate: c.id,
          row,
          score: logged.score,
          error: null,
          tokens: logged.tokens,
          feedback: logged.feedback as unknown as RolloutFeedback,
        },
        budgeted,
      );
    }
    const failures: string[] = [];
    await mapLimit(toRun, this.o.concurrency, async (row) => {
      let result;
      try {
        result = await this.o.runner(c, row);
      } catch (err) {
        result = {
          score: 0,
          error: `${(err as Error).name}: ${(err as Error).message}`,
          tokens: ZERO_TOKENS,
          feedback: emptyFeedback(`${(err as Error).message}`),
        };
      }
      this.o.log.appendRollout({
        key: this.key(c, row),
        candidate: c.id,
        sha: c.sha,
        row,
        purpose,
        score: result.score,
        error: result.error,
        tokens: result.tokens,
        budgeted,
        feedback: result.feedback as unknown as Record<string, unknown>,
        at: new Date().toISOString(),
      });
      if (result.error !== null) failures.push(`${c.id} on row ${row}: ${result.error}`);
      else this.take({ candidate: c.id, row, ...result }, budgeted);
    });
    if (failures.length)
      throw new HarnessFailure(`${failures.length} rollout(s) ended in a harness error, first: ${failures[0]}`);
    return rows.map((r) => this.memo.get(this.key(c, r))!);
  }

  private take(r: Rollout, budgeted: boolean): void {
    this.memo.set(this.key(this.byId(r.candidate), r.row), r);
    this.taskTokens = addTokens(this.taskTokens, r.tokens);
    if (budgeted) {
      this.spent++;
      this.o.onRollout?.(this.spent, this.o.budget);
    } else this.extra++;
  }

  /** The reflection (or proposal) model's answer for this call, from the log when it is there. */
  async reflect(key: string, prompt: string): Promise<string> {
    const promptSha = sha256(prompt);
    const logged = this.o.log.reflection(key);
    let answer: string;
    let tokens: Tokens;
    if (logged) {
      if (logged.prompt_sha !== promptSha)
        throw new LogMismatch(`the log's reflection ${key} was asked with another prompt than this run builds`);
      ({ answer, tokens } = logged);
    } else {
      ({ answer, tokens } = await this.o.reflector(prompt, key));
      this.o.log.appendReflection({ key, prompt_sha: promptSha, prompt, answer, tokens, at: new Date().toISOString() });
    }
    this.reflectionCalls++;
    this.reflectionTokens = addTokens(this.reflectionTokens, tokens);
    return answer;
  }

  /** Run the candidate on every validation row and record its per-row scores and a point of the progress curve. */
  async validate(c: Candidate, rows: readonly string[]): Promise<number> {
    const rs = await this.evaluate(c, rows, 'validation');
    const scores = new Map(rs.map((r) => [r.row, r.score]));
    this.val.set(c.id, scores);
    const mean = meanOf(rs.map((r) => r.score));
    const best = this.best();
    this.progress.push({
      spent: this.spent,
      candidate: c.id,
      val: mean,
      best: best ? this.valMean(best.id) : mean,
      bestCandidate: best?.id ?? c.id,
    });
    this.o.log.event(`val:${c.id}`, 'validation', {
      id: c.id,
      mean,
      spent: this.spent,
      scores: Object.fromEntries(scores),
    });
    return mean;
  }

  /** Candidates with a full validation, in creation order. */
  validated(): Candidate[] {
    return this.candidates.filter((c) => this.val.has(c.id));
  }

  valScores(id: string): ReadonlyMap<string, number> | undefined {
    return this.val.get(id);
  }

  valMean(id: string): number {
    const s = this.val.get(id);
    return s ? meanOf([...s.values()]) : NaN;
  }

  /** The validated candidate with the best validation mean; ties go to the earliest (the seed first). */
  best(): Candidate | undefined {
    let best: Candidate | undefined;
    for (const c of this.validated()) if (!best || this.valMean(c.id) > this.valMean(best.id)) best = c;
    return best;
  }

  /** Rollouts this search consumed, as logged lines would show them (for the report). */
  rollouts(): Rollout[] {
    return [...this.memo.values()];
  }
}

export function promptsSha(prompts: RolePrompts): string {
  return sha256(stableStringify(prompts));
}

export function meanOf(xs: readonly number[]): number {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN;
}

function emptyFeedback(error: string): RolloutFeedback {
  return {
    question: '',
    gold: '',
    predicted: '',
    correct: false,
    rule: null,
    error,
    toolCalls: 0,
    toolErrors: [],
    answeredBy: null,
    runs: [],
    vote: null,
    forcedFinal: false,
  };
}

/** Run `fn` over `items`, at most `limit` at a time; resolves when all have finished. */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
