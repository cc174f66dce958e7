// A long-lived python3 child answering the differential tests (fixtures/pyliteral/oracle.py): one JSON line in,
// one JSON line out, so thousands of cases run in seconds. Side effects (a process) live here, not in the emulation.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { JSON_LINES_CHILD, JsonLinesChild } from '../json-lines-child.ts';

export const ORACLE_SCRIPT = fileURLToPath(new URL('../../../fixtures/pyliteral/oracle.py', import.meta.url));

/** The interpreter the tests compare against: $TOOLGAUGE_PYTHON, else python3 on PATH. */
export function pythonCommand(): string {
  return process.env.TOOLGAUGE_PYTHON || 'python3';
}

export class PythonOracle extends JsonLinesChild {
  /**
   * Start the oracle, or say why it cannot run: no interpreter, or not CPython 3.11 (the reference runner's
   * version; the emulation follows 3.11's tokenizer and Unicode 14 data, so another version would disagree).
   */
  static async start(python = pythonCommand()): Promise<PythonOracle | { skip: string }> {
    if (!existsSync(ORACLE_SCRIPT)) return { skip: `missing ${ORACLE_SCRIPT}` };
    const probe = await execa(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { reject: false });
    if (probe.failed || probe.exitCode !== 0)
      return { skip: `no Python interpreter (${python}): set TOOLGAUGE_PYTHON` };
    if (probe.stdout.trim() !== '3.11')
      return { skip: `${python} is Python ${probe.stdout.trim()}, the reference is 3.11` };
    return new PythonOracle(execa(python, ['-X', 'utf8', ORACLE_SCRIPT], JSON_LINES_CHILD), 'python oracle');
  }
}

/** Start the oracle for a test file; when it cannot run, say why on stderr (the suite's name repeats it). */
export async function startOracle(who: string): Promise<{ oracle?: PythonOracle; skipReason?: string }> {
  const started = await PythonOracle.start();
  if ('skip' in started) {
    console.warn(`[${who}] differential tests against Python skipped: ${started.skip}`);
    return { skipReason: started.skip };
  }
  return { oracle: started };
}
