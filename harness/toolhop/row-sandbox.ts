import { routeOf } from '../sandbox/auto.ts';
import type { RowRoute, Sandbox } from '../sandbox/index.ts';
import type { ToolhopRow } from './row.ts';

/** Which sandbox ran a row's tools, as its trace and meta record it (`null`: none could, an environment error). */
export interface RowSandbox {
  sandbox: 'pyodide' | 'python' | null;
  /** The imports that sent the row to CPython under `--sandbox auto` (empty otherwise). */
  sandbox_needs: string[];
}

/**
 * The row's route before any model request: under `--sandbox auto` a row whose tools import what pyodide cannot
 * run goes to CPython, and when no CPython can run it the row is not run at all (`error`: an environment error,
 * counted apart from the model's wrong answers).
 */
export async function routeRowTools(
  row: ToolhopRow,
  sandbox: Sandbox,
): Promise<{ recorded: RowSandbox; error?: string }> {
  const r: RowRoute = await routeOf(sandbox, { rowId: row.id, sources: row.functions });
  const recorded = { sandbox: r.backend, sandbox_needs: r.needs };
  return r.backend === null ? { recorded, error: `environment: ${r.reason}` } : { recorded };
}
