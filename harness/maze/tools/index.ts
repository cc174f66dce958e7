// The Maze tool library: registry, substitute sets, argument validation and the one entry point that runs a
// tool (`callTool`). Arguments are checked against the tool's JSON Schema with ajv; invalid use is an
// `{ error }` result, never an exception.

import { Ajv, type ValidateFunction } from 'ajv';
import { BANKING_TOOLS, RETAIL_TOOLS, SHIPPING_TOOLS } from './commerce.ts';
import { FX_TOOLS, MARKET_TOOLS } from './markets.ts';
import { CALENDAR_TOOLS, MATH_TOOLS, MESSAGING_TOOLS } from './office.ts';
import { TRAVEL_TOOLS, WEATHER_TOOLS } from './weather-travel.ts';
import type { HistoryEntry, MazeTool, ToolArgs, ToolResult } from './types.ts';
import type { OpenAITool } from '../../core/chat.ts';

export * from './types.ts';
export { LIBRARY_TODAY } from './data.ts';

export const TOOL_LIBRARY: readonly MazeTool[] = [
  ...MARKET_TOOLS,
  ...FX_TOOLS,
  ...WEATHER_TOOLS,
  ...TRAVEL_TOOLS,
  ...CALENDAR_TOOLS,
  ...BANKING_TOOLS,
  ...RETAIL_TOOLS,
  ...SHIPPING_TOOLS,
  ...MESSAGING_TOOLS,
  ...MATH_TOOLS,
];

const BY_NAME = new Map(TOOL_LIBRARY.map((t) => [t.name, t]));
if (BY_NAME.size !== TOOL_LIBRARY.length) throw new Error('maze tool library: duplicate tool names');

export function getTool(name: string): MazeTool | undefined {
  return BY_NAME.get(name);
}
export function mustGetTool(name: string): MazeTool {
  const t = BY_NAME.get(name);
  if (!t) throw new Error(`maze tool library: no tool "${name}"`);
  return t;
}

/** Substitute set name → member tool names (library order). */
export function substituteSets(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of TOOL_LIBRARY) if (t.substituteSet) (out[t.substituteSet] ??= []).push(t.name);
  return out;
}

const ajv = new Ajv({ strict: true, allErrors: false });
const paramValidators = new Map<string, ValidateFunction>();
const outputValidators = new Map<string, ValidateFunction>();
function validator(cache: Map<string, ValidateFunction>, key: string, schema: object): ValidateFunction {
  let v = cache.get(key);
  if (!v) cache.set(key, (v = ajv.compile(schema)));
  return v;
}

/** `null` when valid, else a message naming the field. */
export function checkArgs(tool: MazeTool, args: unknown): string | null {
  const v = validator(paramValidators, tool.name, tool.parameters);
  if (v(args)) return null;
  const e = v.errors?.[0];
  const where = e?.instancePath ? e.instancePath.slice(1) : e?.params && 'missingProperty' in e.params ? String(e.params.missingProperty) : '';
  const extra = e?.params && 'additionalProperty' in e.params ? ` "${String(e.params.additionalProperty)}"` : '';
  return `invalid arguments for ${tool.name}${where ? ` (${where})` : ''}: ${e?.message ?? 'invalid'}${extra}`;
}

/** `null` when the output matches the tool's output schema (used by the linter and tests). */
export function checkOutput(tool: MazeTool, output: unknown): string | null {
  const v = validator(outputValidators, tool.name, tool.output);
  if (v(output)) return null;
  return `output of ${tool.name} ${v.errors?.[0]?.instancePath ?? ''} ${v.errors?.[0]?.message ?? 'invalid'}`.trim();
}

export type CallKind = 'clean' | 'invalid_arguments' | 'invalid_use';
/** Run a tool for real against a run's history. Never throws for bad input. */
export function callTool(name: string, args: ToolArgs, history: readonly HistoryEntry[]): { result: ToolResult; kind: CallKind } {
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
