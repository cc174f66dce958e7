// Simulator policies for Maze as pure functions: the next assistant message given the task and the
// conversation so far. The lead wraps them in the HTTP simulator; run-local.ts drives them in memory.
//
// oracle — follows a valid path; a bad result (explicit error, or a result the shared detectors find
//   implausible — judged from the visible result only, never from the task's victim data) is retried once; a
//   second bad result bans that tool and the oracle switches to the cheapest valid path without banned tools;
//   with none left it aborts ("Task aborted", "unable to complete"). Otherwise it answers the value it computed.
// naive — walks the first valid path once, one call per node, trusting every result (arguments are bound from
//   whatever came back), then answers; it never retries or switches.

import type { ChatMessage, ToolCall } from '../core/chat.ts';
import { detectImplausible } from './detectors.ts';
import { parseArguments } from './engine.ts';
import { bindArgs, nodeIndex, resolveRef, type MazeTask, type TaskPath } from './task.ts';
import { getTool } from './tools/index.ts';
import type { ToolArgs, ToolResult } from './tools/types.ts';

export type MazePolicyName = 'oracle' | 'naive';
export const MAZE_POLICIES: readonly MazePolicyName[] = ['oracle', 'naive'];

export interface AssistantTurn {
  content: string | null;
  tool_calls?: ToolCall[];
}

interface SeenCall {
  name: string;
  args: ToolArgs | null;
  result: ToolResult | null;
}

/** Tool calls made so far with their (parsed) results, in order. */
export function seenCalls(messages: readonly ChatMessage[]): SeenCall[] {
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m.content ?? '');
  const out: SeenCall[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) {
      const raw = results.get(c.id);
      let result: ToolResult | null = null;
      if (raw !== undefined) {
        try {
          const v: unknown = JSON.parse(raw);
          result = v && typeof v === 'object' && !Array.isArray(v) ? (v as ToolResult) : { error: String(raw) };
        } catch {
          result = { error: raw };
        }
      }
      out.push({ name: c.function.name, args: parseArguments(c.function.arguments), result });
    }
  }
  return out;
}

function call(turn: number, i: number, name: string, args: ToolArgs): ToolCall {
  return { id: `call_${turn}_${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

const formatValue = (v: unknown) =>
  typeof v === 'number' || typeof v === 'string' ? String(v) : JSON.stringify(v ?? null);

export function mazePolicy(name: MazePolicyName, task: MazeTask, messages: readonly ChatMessage[]): AssistantTurn {
  const turn = messages.filter((m) => m.role === 'assistant').length;
  return name === 'oracle' ? oracle(task, messages, turn) : naive(task, messages, turn);
}

/** Would a careful agent trust this result? Same detectors as the linter; only visible data. */
export function looksGood(c: SeenCall): boolean {
  if (!c.result || 'error' in c.result || !c.args) return false;
  const tool = getTool(c.name);
  return !!tool && detectImplausible(tool, c.args, c.result) === null;
}

function oracle(task: MazeTask, messages: readonly ChatMessage[], turn: number): AssistantTurn {
  const idx = nodeIndex(task);
  const toolToNode = new Map([...idx.values()].map((l) => [l.node.tool, l.node.id]));
  const good = new Map<string, ToolResult>(); // node id → trusted result
  const bad = new Map<string, number>(); // tool → bad results before any good one
  for (const c of seenCalls(messages)) {
    const nodeId = toolToNode.get(c.name);
    if (!nodeId || good.has(nodeId)) continue;
    if (looksGood(c)) good.set(nodeId, c.result!);
    else bad.set(c.name, (bad.get(c.name) ?? 0) + 1);
  }
  const banned = (tool: string) => (bad.get(tool) ?? 0) >= 2;
  const remaining = (p: TaskPath) => p.nodes.filter((n) => !good.has(n)).length;
  const options = task.paths.filter((p) => !p.tools.some(banned));
  if (options.length === 0) {
    const culprits = [...bad.keys()].filter(banned);
    return {
      content: `I was unable to complete the task: ${culprits.join(', ')} failed or returned implausible data twice and no alternative route is left. Task aborted.`,
    };
  }
  // Cheapest remaining route; ties go to the graph's first path.
  const path = options.reduce((best, p) => (remaining(p) < remaining(best) ? p : best));
  const next = path.nodes.find((n) => !good.has(n));
  if (next) {
    const node = idx.get(next)!.node;
    return { content: null, tool_calls: [call(turn, 0, node.tool, bindArgs(task, path, node, good))] };
  }
  const src = resolveRef(task, path, task.answer.ref);
  const value = src ? good.get(src)?.[task.answer.field] : undefined;
  return { content: `The result is ${formatValue(value)}. <answer>${formatValue(value)}</answer>` };
}

function naive(task: MazeTask, messages: readonly ChatMessage[], turn: number): AssistantTurn {
  const idx = nodeIndex(task);
  const path = task.paths[0]!;
  const toolToNode = new Map([...idx.values()].map((l) => [l.node.tool, l.node.id]));
  const latest = new Map<string, ToolResult>();
  for (const c of seenCalls(messages)) {
    const nodeId = toolToNode.get(c.name);
    if (nodeId && c.result) latest.set(nodeId, c.result);
  }
  const next = path.nodes.find((n) => !latest.has(n));
  if (next) {
    const node = idx.get(next)!.node;
    return { content: null, tool_calls: [call(turn, 0, node.tool, bindArgs(task, path, node, latest))] };
  }
  const src = resolveRef(task, path, task.answer.ref);
  const v = src ? latest.get(src)?.[task.answer.field] : undefined;
  const shown = v === undefined ? 'n/a' : formatValue(v);
  return { content: `Here is what I found: ${shown}. <answer>${shown}</answer>` };
}
