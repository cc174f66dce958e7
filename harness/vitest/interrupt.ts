import { writeSync } from 'node:fs';

/** The exit code of a run stopped by SIGINT: 128 + the signal's number, as a shell and Vitest's own handler report it. */
export const INTERRUPTED_EXIT_CODE = 130;

/** The exit code of a run stopped by SIGTERM (a CI job's timeout, `kill`): 128 + 15, as a shell reports it. */
export const TERMINATED_EXIT_CODE = 143;

/**
 * While a CLI run is under way, SIGINT (Ctrl-C) or SIGTERM prints `line()` on stderr and the process exits with 130 or
 * 143. Vitest's own handler, registered after this one while Vitest runs, exits a moment later (keeping the code set
 * here); before Vitest starts (the run still opening) this one exits. Written synchronously: the process ends right
 * after. Returns the remover.
 */
export function onInterrupt(line: () => string): () => void {
  let fired = false;
  const handler = (signal: NodeJS.Signals) => {
    if (fired) return;
    fired = true;
    let text: string;
    try {
      text = line();
    } catch (err) {
      text = `toolgauge: interrupted (${(err as Error).message})`;
    }
    try {
      writeSync(2, `${text}\n`);
    } catch {
      // stderr closed: nothing to say it on
    }
    const code = signal === 'SIGTERM' ? TERMINATED_EXIT_CODE : INTERRUPTED_EXIT_CODE;
    process.exitCode = code;
    setTimeout(() => process.exit(code), 100);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
