/**
 * The engine settings a run uses when the user does not say (TOOLGAUGE_ENGINE_THREADS / _CTX): one place, so the
 * engines the run serves and the ones its test workers start for the probe's local axes agree on them.
 */
import { cpus } from 'node:os';

/** Context size in tokens when none is given (explicit: node-llama-cpp would otherwise size it from free memory). */
export const DEFAULT_CONTEXT_SIZE = 2048;

/** Threads when the user does not say: 1 on 2 cores or fewer (2 threads fell to 2 tokens/s under load), else half the logical cores. */
export function defaultThreads(): number {
  const n = cpus().length;
  return n <= 2 ? 1 : Math.max(1, Math.floor(n / 2));
}

/** What an engine of this run runs with: the run's own settings, else the defaults. */
export interface EngineSettings {
  threads: number;
  contextSize: number;
}

export function engineSettingsOf(
  given: { threads?: number | undefined; contextSize?: number | undefined } | undefined,
): EngineSettings {
  return { threads: given?.threads ?? defaultThreads(), contextSize: given?.contextSize ?? DEFAULT_CONTEXT_SIZE };
}
