import type { RunConfig } from '../core/config.ts';
import type { ModelClientOptions } from '../model/client.ts';

/**
 * A judge model's client, as every judge of a run gets it (a judged eval scorer, Maze's LLM judge): the run's
 * timeouts, retries, concurrency and request cache (`--cache record|replay` covers the judge's requests as the task
 * model's), temperature 0, and a short backoff when the simulator answers.
 */
export function judgeClientOptions(
  run: RunConfig,
  o: { baseUrl: string; apiKey?: string | undefined; model: string; simulated: boolean },
): ModelClientOptions {
  return {
    baseUrl: o.baseUrl,
    ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}),
    model: o.model,
    timeoutMs: run.requestTimeoutMs,
    retries: run.retries,
    deadlineMs: run.requestDeadlineMs,
    concurrency: run.concurrency,
    cache: { mode: run.cache, dir: run.cacheDir },
    temperature: 0,
    backoff: o.simulated ? { baseMs: 20, maxMs: 200 } : { baseMs: 500, maxMs: 20_000 },
  };
}
