// Test support: where the shared BFCL data and BFCL's reference Python are, and a client for the reference oracle
// (fixtures/bfcl/oracle.py running BFCL's own checker under /usr/bin/python3). Used by the *.test.ts files and the
// agreement bench; not part of the library's runtime path.
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SHARED_BFCL = fileURLToPath(new URL('../../../shared/data/bfcl', import.meta.url));
export const SHARED_DATA = `${SHARED_BFCL}/data`;
export const SHARED_REFERENCE = `${SHARED_BFCL}/reference`;
export const SHARED_CLASSES = `${SHARED_REFERENCE}/eval_checker/multi_turn_eval/func_source_code`;
export const FIXTURE_DATA = fileURLToPath(new URL('../../fixtures/bfcl/data', import.meta.url));
export const ORACLE_SCRIPT = fileURLToPath(new URL('../../fixtures/bfcl/oracle.py', import.meta.url));

export const hasSharedData = () => existsSync(`${SHARED_DATA}/BFCL_v4_simple_python.json`);
export const hasReference = () => existsSync(`${SHARED_REFERENCE}/eval_checker/ast_eval/ast_checker.py`);

export function referencePython(): string {
  return process.env.TOOLGAUGE_PYTHON || '/usr/bin/python3';
}

const OPTIONS = { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit', buffer: false, env: { PYTHONHASHSEED: '0' } } as const;

/** BFCL's own Python behind JSON lines. */
export class BfclOracle {
  private buffer = '';
  private waiting: Array<{ resolve: (line: string) => void; reject: (e: Error) => void }> = [];
  private dead: Error | undefined;

  private constructor(private readonly child: ResultPromise<typeof OPTIONS>) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.waiting.shift()?.resolve(line);
      }
    });
    const fail = (err: Error) => {
      this.dead ??= err;
      for (const w of this.waiting.splice(0)) w.reject(err);
    };
    child.catch((err: Error) => fail(err));
    child.then(() => fail(new Error('BFCL oracle exited')));
  }

  /** Start it, or say why it cannot run (no reference folder, no interpreter, missing mpmath). */
  static async start(): Promise<BfclOracle | { skip: string }> {
    if (!hasReference()) return { skip: `BFCL reference Python not found under ${SHARED_REFERENCE}` };
    const python = referencePython();
    const probe = await execa(python, ['-c', 'import mpmath, sys; print("%d.%d" % sys.version_info[:2])'], { reject: false });
    if (probe.exitCode !== 0) return { skip: `${python} cannot run BFCL's code (needs Python 3 with mpmath): set TOOLGAUGE_PYTHON` };
    return new BfclOracle(execa(python, ['-X', 'utf8', ORACLE_SCRIPT, SHARED_REFERENCE], OPTIONS));
  }

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

export type OracleSingle = { valid: boolean; error_type: string; detail?: string } | { crash: string; detail?: string } | { oracle_error: string };
