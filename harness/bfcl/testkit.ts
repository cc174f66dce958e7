// Test support: where the shared BFCL data and BFCL's reference Python are, and a client for the reference oracle
// (fixtures/bfcl/oracle.py running BFCL's own checker under /usr/bin/python3). Used by the *.test.ts files and the
// agreement bench; not part of the library's runtime path.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JSON_LINES_CHILD, JsonLinesChild } from '../core/json-lines-child.ts';

export const SHARED_BFCL = fileURLToPath(new URL('../../../shared/data/bfcl', import.meta.url));
export const SHARED_DATA = `${SHARED_BFCL}/data`;
/**
 * BFCL's Python package folder (bfcl_eval): TOOLGAUGE_BFCL_REF (a berkeley-function-call-leaderboard folder, e.g. a
 * checkout of the public gorilla repository kept outside this one) when set, else a reference folder beside the data.
 */
export const SHARED_REFERENCE = process.env.TOOLGAUGE_BFCL_REF
  ? join(process.env.TOOLGAUGE_BFCL_REF, 'bfcl_eval')
  : `${SHARED_BFCL}/reference`;
export const SHARED_CLASSES = `${SHARED_REFERENCE}/eval_checker/multi_turn_eval/func_source_code`;
export const FIXTURE_DATA = fileURLToPath(new URL('../../fixtures/bfcl/data', import.meta.url));
export const ORACLE_SCRIPT = fileURLToPath(new URL('../../fixtures/bfcl/oracle.py', import.meta.url));

export const hasSharedData = () => existsSync(`${SHARED_DATA}/BFCL_v4_simple_python.json`);
export const hasReference = () => existsSync(`${SHARED_REFERENCE}/eval_checker/ast_eval/ast_checker.py`);

export function referencePython(): string {
  return process.env.TOOLGAUGE_PYTHON || '/usr/bin/python3';
}

/** BFCL's own Python behind JSON lines. */
export class BfclOracle extends JsonLinesChild {
  /** Start it, or say why it cannot run (no reference folder, no interpreter, missing mpmath). */
  static async start(): Promise<BfclOracle | { skip: string }> {
    if (!hasReference()) return { skip: `BFCL reference Python not found under ${SHARED_REFERENCE}` };
    const python = referencePython();
    const probe = await execa(python, ['-c', 'import mpmath, sys; print("%d.%d" % sys.version_info[:2])'], {
      reject: false,
    });
    if (probe.exitCode !== 0)
      return { skip: `${python} cannot run BFCL's code (needs Python 3 with mpmath): set TOOLGAUGE_PYTHON` };
    return new BfclOracle(
      execa(python, ['-X', 'utf8', ORACLE_SCRIPT, SHARED_REFERENCE], JSON_LINES_CHILD),
      'BFCL oracle',
    );
  }
}

export type OracleSingle =
  | { valid: boolean; error_type: string; detail?: string }
  | { crash: string; detail?: string }
  | { oracle_error: string };
