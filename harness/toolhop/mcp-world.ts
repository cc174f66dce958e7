// A ToolHop row's tools over MCP: the row's Python functions, run by the sandbox exactly as a ToolHop run runs them
// (ToolhopExecutor: the reference runner's messages, the result's character budget), as a served world
// (harness/mcp-serve/). Each call runs in a fresh sandboxed interpreter, so sessions share nothing but the sandbox.

import { UsageError } from '../core/errors.ts';
import type { ServedWorld } from '../mcp-serve/world.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { loadDatasetFile } from './dataset.ts';
import { ToolhopExecutor } from './executor.ts';
import { rowId, type ToolhopRow } from './row.ts';

/** The row's tools as a world: a tool exception, a killed call, bad arguments and an unknown tool are MCP errors. */
export function toolhopWorld(row: ToolhopRow, sandbox: Sandbox, charBudget: number): ServedWorld {
  const executor = new ToolhopExecutor(row, sandbox, charBudget);
  return {
    tools: () => executor.tools(),
    async call(c) {
      const r = await executor.execute(c);
      const outcome = String(r.meta?.outcome ?? 'unknown');
      return { content: r.content, isError: outcome !== 'ok', record: { row: rowId(row), outcome } };
    },
  };
}

/** The row `toolgauge mcp serve toolhop --row ID` serves, from a ToolHop file; a missing or broken row is one line. */
export function toolhopRowToServe(file: string, id: string): ToolhopRow {
  const entry = loadDatasetFile(file, { only: [id] }).entries[0];
  if (!entry) throw new UsageError(`toolgauge mcp serve toolhop: --row: no row ${id} in ${file}`);
  if (!entry.ok) throw new UsageError(`toolgauge mcp serve toolhop: --row ${id}: ${entry.error}`);
  return entry.row;
}
