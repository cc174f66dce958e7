// Scripted agents for tests: a fixed sequence of moves (call node X, call nodes in parallel, answer), with
// arguments bound from the results seen so far. Lets tests reproduce exact behaviours — pick each alternative
// first, retry with bad arguments, pass a corrupted value downstream — through the real MazeSession.

import type { ToolCall } from '../core/chat.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { EvaluationFile, evaluationPath, InferenceFile, inferencePath } from './output.ts';
import { looksGood, seenCalls } from './policies.ts';
import type { MazeAgent } from './run-local.ts';
import { bindArgs, nodeIndex, resolveRef, type MazeTask, type TaskPath } from './task.ts';
import type { ToolArgs, ToolResult } from './tools/types.ts';

export type Move =
  | {
      /** Node to call (its tool and bound arguments). */
      call: string;
      /** Path used to resolve slot references (default: the first path containing the node). */
      path?: string;
      /** 'good' (default): bind from the latest trusted result; 'first': from the first result, trusted or not. */
      bind?: 'good' | 'first';
      /** Argument overrides (merged over the bound ones). */
      args?: ToolArgs;
      /** Raw arguments text instead (e.g. malformed JSON). */
      raw?: string;
      /** Tool name override (e.g. an unknown tool). */
      tool?: string;
    }
  | { parallel: string[]; path?: string }
  | { answer: string | 'value'; path?: string };

/** The agent plays `moves[k]` on its k-th turn; after the script it answers "done". */
export function scriptedAgent(task: MazeTask, moves: readonly Move[]): MazeAgent {
  const idx = nodeIndex(task);
  const toolToNode = new Map([...idx.values()].map((l) => [l.node.tool, l.node.id]));
  const pathOf = (nodeId: string, pid?: string): TaskPath =>
    (pid ? task.paths.find((p) => p.id === pid) : task.paths.find((p) => p.nodes.includes(nodeId))) ?? task.paths[0]!;
  return (messages) => {
    const turn = messages.filter((m) => m.role === 'assistant').length;
    const good = new Map<string, ToolResult>();
    const first = new Map<string, ToolResult>();
    for (const c of seenCalls(messages)) {
      const n = toolToNode.get(c.name);
      if (!n || !c.result) continue;
      if (!first.has(n)) first.set(n, c.result);
      if (looksGood(c)) good.set(n, c.result);
    }
    const move = moves[turn];
    if (!move) return { content: 'done' };
    const mk = (nodeId: string, i: number, m?: Extract<Move, { call: string }>): ToolCall => {
      const node = idx.get(nodeId)!.node;
      const path = pathOf(nodeId, m?.path);
      const args = {
        ...bindArgs(task, path, node, m?.bind === 'first' ? new Map([...good, ...first]) : good),
        ...(m?.args ?? {}),
      };
      return {
        id: `call_${turn}_${i}`,
        type: 'function',
        function: { name: m?.tool ?? node.tool, arguments: m?.raw ?? JSON.stringify(args) },
      };
    };
    if ('call' in move) return { content: null, tool_calls: [mk(move.call, 0, move)] };
    if ('parallel' in move)
      return {
        content: null,
        tool_calls: move.parallel.map((n, i) => mk(n, i, { call: n, ...(move.path ? { path: move.path } : {}) })),
      };
    if (move.answer !== 'value') return { content: move.answer };
    const path = move.path ? task.paths.find((p) => p.id === move.path)! : task.paths[0]!;
    const src = resolveRef(task, path, task.answer.ref);
    const v = src ? (good.get(src) ?? first.get(src))?.[task.answer.field] : undefined;
    return { content: `<answer>${String(v)}</answer>` };
  };
}

/** Call every node of a path in order, then answer its value. */
export function walkPath(task: MazeTask, pathId: string, extra: { answer?: string } = {}): Move[] {
  const p = task.paths.find((x) => x.id === pathId)!;
  return [...p.nodes.map((n): Move => ({ call: n, path: pathId })), { answer: extra.answer ?? 'value', path: pathId }];
}

/**
 * Stage one run's inference and evaluation files where a run puts them (the suite hands them to the kit, which
 * writes them), for tests of the readers such as `recomputeFromFiles`.
 */
export function writeRunFiles(
  root: string,
  inference: InferenceFile,
  evaluation: EvaluationFile,
): { inference: string; evaluation: string } {
  const ip = inferencePath(root, inference.complexity, inference.task_id, inference.mode, inference.trial);
  const ep = evaluationPath(root, evaluation.complexity, evaluation.task_id, evaluation.mode, evaluation.trial);
  writeFileAtomic(ip, `${JSON.stringify(InferenceFile.parse(inference), null, 2)}\n`);
  writeFileAtomic(ep, `${JSON.stringify(EvaluationFile.parse(evaluation), null, 2)}\n`);
  return { inference: ip, evaluation: ep };
}
