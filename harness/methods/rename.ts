/**
 * Renaming tools and parameters for a request, and mapping the model's calls back to the original names before
 * scoring. A rename map must be injective per namespace (tool names; each tool's parameter names), which
 * `validRename` checks; names not in the map stay as they are.
 *
 * What is renamed in a request: each tool's name, its top-level property names and its `required` list; in the
 * history, prior assistant tool calls (name and argument keys) and tool messages' `name`. Descriptions and the
 * system prompt are left alone (a method that rewrites them does it itself).
 */
import type { ChatMessage, OpenAITool } from '../core/chat.ts';
import type { ParsedCall } from '../parse/index.ts';

export interface RenameMap {
  /** original tool name → presented name */
  tools: Record<string, string>;
  /** original tool name → (original parameter → presented parameter) */
  params: Record<string, Record<string, string>>;
}

const own = (o: Record<string, string> | undefined, k: string): string | undefined =>
  o && Object.hasOwn(o, k) ? o[k] : undefined;

function invert(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) out[v] = k;
  return out;
}

/** Problems that would make the mapping ambiguous (two originals onto one presented name). */
export function validRename(tools: readonly OpenAITool[], map: RenameMap): string[] {
  const problems: string[] = [];
  const presented = tools.map((t) => own(map.tools, t.function.name) ?? t.function.name);
  const dup = presented.filter((n, i) => presented.indexOf(n) !== i);
  if (dup.length) problems.push(`two tools presented as ${[...new Set(dup)].join(', ')}`);
  for (const t of tools) {
    const props = Object.keys(
      ((t.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as object,
    );
    const names = props.map((p) => own(map.params[t.function.name], p) ?? p);
    const d = names.filter((n, i) => names.indexOf(n) !== i);
    if (d.length) problems.push(`${t.function.name}: two parameters presented as ${[...new Set(d)].join(', ')}`);
  }
  return problems;
}

function renameArgs(args: Record<string, unknown>, m: Record<string, string> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) out[own(m, k) ?? k] = v;
  return out;
}

/** Original → presented, for one call (used for history turns and tests). */
export function presentCall(call: ParsedCall, map: RenameMap): ParsedCall {
  return { name: own(map.tools, call.name) ?? call.name, arguments: renameArgs(call.arguments, map.params[call.name]) };
}

/** Presented → original, for one parsed call: what scoring sees. */
export function originalCall(call: ParsedCall, map: RenameMap): ParsedCall {
  const back = invert(map.tools);
  const name = own(back, call.name) ?? call.name;
  return { name, arguments: renameArgs(call.arguments, invert(map.params[name] ?? {})) };
}

export function presentTools(tools: readonly OpenAITool[], map: RenameMap): OpenAITool[] {
  return tools.map((t) => {
    const m = map.params[t.function.name];
    const p = t.function.parameters as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    const parameters = p
      ? {
          ...p,
          ...(p.properties
            ? { properties: Object.fromEntries(Object.entries(p.properties).map(([k, v]) => [own(m, k) ?? k, v])) }
            : {}),
          ...(Array.isArray(p.required) ? { required: p.required.map((k) => own(m, k) ?? k) } : {}),
        }
      : undefined;
    return {
      type: 'function',
      function: {
        ...t.function,
        name: own(map.tools, t.function.name) ?? t.function.name,
        ...(parameters ? { parameters } : {}),
      },
    };
  });
}

export function presentMessages(messages: readonly ChatMessage[], map: RenameMap): ChatMessage[] {
  return messages.map((m) => {
    if (m.role === 'assistant' && m.tool_calls?.length) {
      return {
        ...m,
        tool_calls: m.tool_calls.map((tc) => {
          let args: unknown;
          try {
            args = JSON.parse(tc.function.arguments);
          } catch {
            args = null;
          }
          const name = tc.function.name;
          const renamed =
            args && typeof args === 'object' && !Array.isArray(args)
              ? JSON.stringify(renameArgs(args as Record<string, unknown>, map.params[name]))
              : tc.function.arguments;
          return { ...tc, function: { name: own(map.tools, name) ?? name, arguments: renamed } };
        }),
      };
    }
    if (m.role === 'tool' && m.name) return { ...m, name: own(map.tools, m.name) ?? m.name };
    return m;
  });
}
