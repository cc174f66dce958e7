import { writeSync } from 'node:fs';

/** The exit code of a run stopped by SIGINT: 128 + the signal's number, as a shell and Vitest's own handler report it. */
export const INTERRUPTED_EXIT_CODE = 130;

/**
 * While a CLI run is under way, SIGINT (Ctrl-C) prints `line()` on stderr and the process exits with 130. Vitest's own
 * handler, registered after this one while Vitest runs, exits a moment later with the same code; before Vitest starts
 * (the run still opening) this one exits. Written synchronously: the process ends right after. Returns the remover.
 */
export function onInterrupt(line: () => string): () => void {
  let fired = false;
  const handler = () => {
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
    process.exitCode = INTERRUPTED_EXIT_CODE;
    setTimeout(() => process.exit(INTERRUPTED_EXIT_CODE), 100);
  };
  process.on('SIGINT', handler);
  return () => process.off('SIGINT', handler);
}
