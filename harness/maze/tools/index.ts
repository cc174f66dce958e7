// The Maze tool library: the built-in tools (library files under cases/maze/tools/, loaded by library.ts), a
// user's own files added beside them (`--tools`), argument validation and the one entry point that runs a tool
// (`callTool`). Arguments are checked against the tool's JSON Schema with ajv; invalid use is an `{ error }`
// result, never an exception.

import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { BUILTIN_TOOLS_DIR, libraryFiles, loadToolFiles, TOOL_SCHEMA_AJV } from './library.ts';
import type { HistoryEntry, MazeTool, ToolArgs, ToolResult } from './types.ts';
import type { OpenAITool } from '../../core/chat.ts';

export * from './types.ts';
export { LIBRARY_TODAY } from './data.ts';

interface Library {
  key: string;
  tools: readonly MazeTool[];
  byName: Map<string, MazeTool>;
}
const libraryOf = (key: string, tools: readonly MazeTool[]): Library => ({
  key,
  tools,
  byName: new Map(tools.map((t) => [t.name, t])),
});
// Loaded on first use, not on import: every process that loads the suite definitions (Vitest's main process under
// plain `vitest run` loads them all) would otherwise parse and check the library files for nothing.
let builtin: Library | undefined;
const builtinLibrary = (): Library => (builtin ??= libraryOf('', loadToolFiles(libraryFiles(BUILTIN_TOOLS_DIR))));
/** undefined: the built-in library. */
let chosen: Library | undefined;
const active = (): Library => chosen ?? builtinLibrary();

/** The built-in library, in file order (docs/maze-tools.md). */
export function builtinTools(): readonly MazeTool[] {
  return builtinLibrary().tools;
}

/**
 * Make the built-in tools plus the tools of these library files or folders the ones every lookup sees (the
 * process runs one Maze configuration at a time). Loading is checked in full first: a bad file throws a one-line
 * DataError and leaves the library as it was. No paths: back to the built-in library.
 */
export function useToolLibrary(paths: readonly string[] = []): readonly MazeTool[] {
  const key = paths.map((p) => resolve(p)).join('\n');
  if (key === '') {
    chosen = undefined;
    return builtinTools();
  }
  if (key === chosen?.key) return chosen.tools;
  // loaded with the built-in files, so a user's tools may use their functions and copy their tools (`like`)
  chosen = libraryOf(
    key,
    loadToolFiles([...libraryFiles(BUILTIN_TOOLS_DIR), ...paths.flatMap((p) => libraryFiles(p))]),
  );
  return chosen.tools;
}

/** The tools lookups see now: the built-in library, plus a user's after `useToolLibrary`. */
export function activeTools(): readonly MazeTool[] {
  return active().tools;
}

export function getTool(name: string): MazeTool | undefined {
  return active().byName.get(name);
}
export function mustGetTool(name: string): MazeTool {
  const t = active().byName.get(name);
  if (!t) throw new Error(`maze tool library: no tool "${name}"`);
  return t;
}

/** Substitute set name → member tool names (library order), of the active library unless `tools` are given. */
export function substituteSets(tools: readonly MazeTool[] = active().tools): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of tools) if (t.substituteSet) (out[t.substituteSet] ??= []).push(t.name);
  return out;
}

// Every tool's schemas were checked when its library loaded (library.ts): checking each against the meta-schema
// again when its validator is compiled (which compiles the meta-schema first) would only cost time.
const ajv = new Ajv({ ...TOOL_SCHEMA_AJV, validateSchema: false });
const paramValidators = new WeakMap<MazeTool, ValidateFunction>();
const outputValidators = new WeakMap<MazeTool, ValidateFunction>();
function validator(cache: WeakMap<MazeTool, ValidateFunction>, key: MazeTool, schema: object): ValidateFunction {
  let v = cache.get(key);
  if (!v) cache.set(key, (v = ajv.compile(schema)));
  return v;
}

/** `null` when valid, else a message naming the field. */
export function checkArgs(tool: MazeTool, args: unknown): string | null {
  const v = validator(paramValidators, tool, tool.parameters);
  if (v(args)) return null;
  const e = v.errors?.[0];
  const where = e?.instancePath
    ? e.instancePath.slice(1)
    : e?.params && 'missingProperty' in e.params
      ? String(e.params.missingProperty)
      : '';
  const extra = e?.params && 'additionalProperty' in e.params ? ` "${String(e.params.additionalProperty)}"` : '';
  return `invalid arguments for ${tool.name}${where ? ` (${where})` : ''}: ${e?.message ?? 'invalid'}${extra}`;
}

/** `null` when the output matches the tool's output schema (used by the linter and tests). */
export function checkOutput(tool: MazeTool, output: unknown): string | null {
  const v = validator(outputValidators, tool, tool.output);
  if (v(output)) return null;
  return `output of ${tool.name} ${v.errors?.[0]?.instancePath ?? ''} ${v.errors?.[0]?.message ?? 'invalid'}`.trim();
}

export type CallKind = 'clean' | 'invalid_arguments' | 'invalid_use';
/** Run a tool for real against a run's history. Never throws for bad input. */
export function callTool(
  name: string,
  args: ToolArgs,
  history: readonly HistoryEntry[],
): { result: ToolResult; kind: CallKind } {
  const tool = mustGetTool(name);
  const bad = checkArgs(tool, args);
  if (bad) return { result: { error: bad }, kind: 'invalid_arguments' };
  const result = tool.run(args, { history });
  return { result, kind: 'error' in result ? 'invalid_use' : 'clean' };
}

/** The agent-visible OpenAI function definition: name, description (with the fields returned) and parameters. */
export function openAITool(tool: MazeTool): OpenAITool {
  const props = (tool.output.properties ?? {}) as Record<string, { description?: string }>;
  const returns = Object.entries(props)
    .map(([k, v]) => `${k} (${v.description ?? ''})`)
    .join('; ');
  return {
    type: 'function',
    function: { name: tool.name, description: `${tool.description} Returns: ${returns}.`, parameters: tool.parameters },
  };
}
