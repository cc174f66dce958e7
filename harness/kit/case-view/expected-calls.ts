import { z } from 'zod';
import type { CaseProblem } from './contract.ts';
import type { Section } from './model.ts';
import { obj, readField } from './values.ts';

/**
 * A describeEval case's expected tool calls beside the calls made (the trace's `expectedTools` and
 * `output.toolCalls`). Rows pair by tool name in order — the k-th expected call of a tool beside the k-th call made to
 * it — so a wrong argument sits beside its expected value whatever the scorer's order mode; calls no expected call
 * names follow, in the order made. Pure; a trace without `expectedTools` has no such section.
 */

const ExpectedJson = z.array(z.object({ name: z.string(), arguments: z.unknown().optional() }).passthrough());

const callText = (name: string, args: unknown): string =>
  `${name}(${args === undefined ? '' : typeof args === 'string' ? args : JSON.stringify(args)})`;

export function expectedCallsSection(
  expectedTools: unknown,
  toolCalls: unknown,
  prefix: string,
  problems: CaseProblem[],
): Section | null {
  if (expectedTools === undefined || expectedTools === null) return null;
  const expected = readField(ExpectedJson, expectedTools, `${prefix}.expectedTools`, problems);
  if (!expected) return null;
  const made = (Array.isArray(toolCalls) ? toolCalls : []).map((c, i) => {
    const o = obj(c);
    const name = typeof o.name === 'string' ? o.name : '?';
    // The parsed arguments, else the model's text as written.
    return { i, name, text: callText(name, o.arguments ?? o.argumentsJson) };
  });
  const used = new Set<number>();
  const rows: string[][] = expected.map((e, k) => {
    const hit = made.find((c) => c.name === e.name && !used.has(c.i));
    if (hit) used.add(hit.i);
    return [String(k + 1), callText(e.name, e.arguments), hit ? `${hit.i + 1}` : '', hit ? hit.text : '(not called)'];
  });
  for (const c of made) if (!used.has(c.i)) rows.push(['', '(not expected)', `${c.i + 1}`, c.text]);
  return {
    kind: 'table',
    title: 'Expected tool calls beside the calls made',
    head: ['expected #', 'expected call', 'call #', 'call made'],
    rows,
  };
}
