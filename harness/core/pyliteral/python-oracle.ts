// A long-lived python3 child answering the differential tests (fixtures/pyliteral/oracle.py): one JSON line in,
// one JSON line out, so thousands of cases run in seconds. Side effects (a process) live here, not in the emulation.
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ORACLE_SCRIPT = fileURLToPath(new URL('../../../fixtures/pyliteral/oracle.py', import.meta.url));

/** The interpreter the tests compare against: $TOOLGAUGE_PYTHON, else python3 on PATH. */
export function pythonCommand(): string {
  return process.env.TOOLGAUGE_PYTHON || 'python3';
}

const CHILD_OPTIONS = {
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit',
  buffer: false,
  env: { PYTHONHASHSEED: '0' },
} as const;

export class PythonOracle {
  private buffer = '';
  private waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void }> = [];
  private dead: Error | undefined;

  private constructor(private readonly child: ResultPromise<typeof CHILD_OPTIONS>) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.waiting.shift()?.resolve(line);
      }
    });
    child.catch((err: Error) => this.fail(err));
    child.then(() => this.fail(new Error('python oracle exited')));
  }

  private fail(err: Error): void {
    this.dead ??= err;
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  /**
   * Start the oracle, or say why it cannot run: no interpreter, or not CPython 3.11 (the reference runner's
   * version; the emulation follows 3.11's tokenizer and Unicode 14 data, so another version would disagree).
   */
  static async start(python = pythonCommand()): Promise<PythonOracle | { skip: string }> {
    if (!existsSync(ORACLE_SCRIPT)) return { skip: `missing ${ORACLE_SCRIPT}` };
    const probe = await execa(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { reject: false });
    if (probe.failed || probe.exitCode !== 0) return { skip: `no Python interpreter (${python}): set TOOLGAUGE_PYTHON` };
    if (probe.stdout.trim() !== '3.11') return { skip: `${python} is Python ${probe.stdout.trim()}, the reference is 3.11` };
    const child = execa(python, ['-X', 'utf8', ORACLE_SCRIPT], CHILD_OPTIONS);
    return new PythonOracle(child);
  }

  /** Send one request (or an array of requests) and wait for its answer. */
  ask<T = unknown>(req: unknown): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise<string>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(req)}\n`);
    }).then((line) => JSON.parse(line) as T);
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.child.catch(() => undefined);
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
