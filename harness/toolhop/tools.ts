import type { OpenAITool } from '../core/chat.ts';
import { firstFree } from '../core/ids.ts';
import type { ToolhopRow } from './row.ts';

/**
 * One hop's tool as the model sees it. Duplicate names get `__0`, `__1` suffixes so both stay callable; a suffixed
 * name is checked against every name of the row (a row may also have a tool called `f__0`), so no two tools sent
 * to the model share a name.
 */
export interface ToolEntry {
  /** Position in `tools` (and in `functions`). */
  index: number;
  /** The sub-question this tool answers. */
  subQuestion: string;
  /** The name in the dataset (the Python function name). */
  name: string;
  /** The name exposed to the model. */
  runtimeName: string;
  schema: ToolhopRow['tools'][string];
}

const MAX_TOOL_NAME = 64;

export function toolEntries(row: ToolhopRow): ToolEntry[] {
  const schemas = Object.entries(row.tools);
  const counts = new Map<string, number>();
  for (const [, s] of schemas) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  const taken = new Set(schemas.filter(([, s]) => counts.get(s.name) === 1).map(([, s]) => s.name));
  return schemas.map(([subQuestion, schema], index) => {
    const occurrence = seen.get(schema.name) ?? 0;
    seen.set(schema.name, occurrence + 1);
    const runtimeName =
      counts.get(schema.name) === 1
        ? schema.name
        : firstFree(taken, (k) => schema.name.slice(0, MAX_TOOL_NAME - `__${k}`.length) + `__${k}`, occurrence);
    return { index, subQuestion, name: schema.name, runtimeName, schema };
  });
}

export function toolsPayload(entries: ToolEntry[]): OpenAITool[] {
  return entries.map((e) => ({
    type: 'function' as const,
    function: { ...e.schema, name: e.runtimeName },
  }));
}
