// Maze task graphs (zod schema + pure graph helpers). A task is a series of steps; a step is one tool node or a
// slot of alternative choices, each choice a sub-chain of nodes. Arguments are literals or bindings to an
// earlier node's (or slot's) output field, so the graph is a DAG; valid paths are the product of the slots'
// choices and are enumerated here, never written by hand.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DataError, dataErrorFromZod } from '../core/errors.ts';
import { DETECTORS } from './detectors.ts';
import { callTool } from './tools/index.ts';
import type { HistoryEntry, ToolArgs, ToolResult } from './tools/types.ts';

export const COMPLEXITIES = ['c1', 'c2', 'c3', 'c4'] as const;
export type Complexity = (typeof COMPLEXITIES)[number];
export const MODES = ['P0', 'P1', 'P2', 'P3', 'P4'] as const;
export type Mode = (typeof MODES)[number];
export const isTransient = (m: Mode) => m === 'P1' || m === 'P3';
export const isPermanent = (m: Mode) => m === 'P2' || m === 'P4';
export const isExplicit = (m: Mode) => m === 'P1' || m === 'P2';
export const isImplicit = (m: Mode) => m === 'P3' || m === 'P4';

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
export const Binding = z.union([
  /** `free`: wording the agent may choose (an email body); the strict judge does not compare it. */
  z.object({ literal: Scalar, free: z.literal(true).optional() }).strict(),
  z.object({ ref: z.string().min(1), field: z.string().min(1) }).strict(),
]);
export type Binding = z.infer<typeof Binding>;

export const TaskNode = z
  .object({ id: z.string().min(1), tool: z.string().min(1), args: z.record(z.string(), Binding) })
  .strict();
export type TaskNode = z.infer<typeof TaskNode>;

export const Choice = z
  .object({
    id: z.string().min(1),
    nodes: z.array(TaskNode).min(1),
    /** The node whose output stands for the slot (`{ ref: slotId, field }` resolves to it). */
    output: z.string().min(1),
  })
  .strict();
export type Choice = z.infer<typeof Choice>;

export const Step = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('node'), node: TaskNode }).strict(),
  z.object({ kind: z.literal('slot'), id: z.string().min(1), choices: z.array(Choice).min(2) }).strict(),
]);
export type Step = z.infer<typeof Step>;

export const Answer = z
  .object({
    ref: z.string().min(1),
    field: z.string().min(1),
    value: z.union([z.string(), z.number()]),
    /** number: some number in the final answer is within `tolerance`; text: case-insensitive substring. */
    match: z.enum(['number', 'text']),
    tolerance: z.number().nonnegative().optional(),
  })
  .strict();
export type Answer = z.infer<typeof Answer>;

export const TaskPath = z
  .object({
    id: z.string(),
    nodes: z.array(z.string()).min(1),
    tools: z.array(z.string()).min(1),
    /** `"slot:choice"` per slot, in step order (empty for C1). */
    group_choices: z.array(z.string()),
  })
  .strict();
export type TaskPath = z.infer<typeof TaskPath>;

export const Victim = z
  .object({
    /** 'main' for the fixed C1 victim, else the slot whose first touch selects among its candidates. */
    group: z.string().min(1),
    choice: z.string().nullable(),
    node: z.string().min(1),
    tool: z.string().min(1),
    /** P1 (transient) and P2 (permanent) error messages; P2's must not invite a retry. */
    explicit: z.object({ P1: z.string().min(1), P2: z.string().min(1) }).strict(),
    /** P3/P4 payload: schema-valid, no error key, caught by `detector` from what the agent sees. */
    implicit: z
      .object({
        detector: z.enum(DETECTORS),
        field: z.string(),
        payload: z.record(z.string(), z.unknown()),
        /** Leaf values of the payload that differ from the clean result (strict judge hunts for them). */
        corrupted_values: z.array(z.union([z.string(), z.number()])).min(1),
      })
      .strict(),
  })
  .strict();
export type Victim = z.infer<typeof Victim>;

/** A task id: it names the task's files (`<id>_<mode>_inference.json`), so it is one plain file-name part. */
export const TaskId = z.string().regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

export const MazeTask = z
  .object({
    id: TaskId,
    complexity: z.enum(COMPLEXITIES),
    template: z.string(),
    domains: z.array(z.string()).min(1),
    query: z.string().min(10),
    steps: z.array(Step).min(1),
    answer: Answer,
    paths: z.array(TaskPath).min(1),
    victims: z.array(Victim).min(1),
  })
  .strict();
export type MazeTask = z.infer<typeof MazeTask>;

export const TaskFile = z
  .object({
    version: z.literal(1),
    complexity: z.enum(COMPLEXITIES),
    seed: z.number().int(),
    generated_by: z.string(),
    tasks: z.array(MazeTask),
  })
  .strict();
export type TaskFile = z.infer<typeof TaskFile>;

// ---- graph helpers -----------------------------------------------------------------------------------------

export interface NodeLocation {
  node: TaskNode;
  stepIndex: number;
  slot: string | null;
  choice: string | null;
}

export function nodeIndex(task: MazeTask): Map<string, NodeLocation> {
  const out = new Map<string, NodeLocation>();
  task.steps.forEach((s, stepIndex) => {
    if (s.kind === 'node') out.set(s.node.id, { node: s.node, stepIndex, slot: null, choice: null });
    else
      for (const c of s.choices)
        for (const n of c.nodes) out.set(n.id, { node: n, stepIndex, slot: s.id, choice: c.id });
  });
  return out;
}

export function slotSteps(task: MazeTask): Array<Extract<Step, { kind: 'slot' }>> {
  return task.steps.filter((s): s is Extract<Step, { kind: 'slot' }> => s.kind === 'slot');
}

/** Bounds on a task's expansion (docs/maze-tools.md, "Budgets"): its paths, and its nodes summed over them. */
export const PATH_LIMITS = { paths: 256, nodes: 4_096 } as const;

/** How many paths a task's steps expand to, and their nodes in total, counted without expanding them. */
export function pathCount(task: Pick<MazeTask, 'steps'>): { paths: number; nodes: number } {
  let paths = 1;
  let nodes = 0;
  for (const s of task.steps) {
    // each path so far gets one of the choices: nodes grow by every path's share of the choices' lengths
    const k = s.kind === 'node' ? 1 : s.choices.length;
    const len = s.kind === 'node' ? 1 : s.choices.reduce((n, c) => n + c.nodes.length, 0);
    nodes = nodes * k + paths * len;
    paths *= k;
  }
  return { paths, nodes };
}

/** Why a task's expansion is over the bounds, or null. */
export function pathLimitProblem(task: Pick<MazeTask, 'steps'>): string | null {
  const { paths, nodes } = pathCount(task);
  if (paths > PATH_LIMITS.paths) return `the slots expand to ${paths} paths, over the limit of ${PATH_LIMITS.paths}`;
  if (nodes > PATH_LIMITS.nodes) return `the paths hold ${nodes} nodes in all, over the limit of ${PATH_LIMITS.nodes}`;
  return null;
}

/** Valid paths: the product of every slot's choices, nodes in step order; refused over PATH_LIMITS. */
export function enumeratePaths(task: Pick<MazeTask, 'steps'>): TaskPath[] {
  const over = pathLimitProblem(task);
  if (over) throw new Error(over);
  let partial: Array<{ nodes: TaskNode[]; group_choices: string[] }> = [{ nodes: [], group_choices: [] }];
  for (const s of task.steps) {
    if (s.kind === 'node')
      partial = partial.map((p) => ({ nodes: [...p.nodes, s.node], group_choices: p.group_choices }));
    else {
      partial = partial.flatMap((p) =>
        s.choices.map((c) => ({
          nodes: [...p.nodes, ...c.nodes],
          group_choices: [...p.group_choices, `${s.id}:${c.id}`],
        })),
      );
    }
  }
  return partial.map((p, i) => ({
    id: `p${i}`,
    nodes: p.nodes.map((n) => n.id),
    tools: p.nodes.map((n) => n.tool),
    group_choices: p.group_choices,
  }));
}

/** The node a reference names on a path: a node id stands for itself, a slot id for the path's choice output. */
export function resolveRef(task: MazeTask, path: TaskPath, ref: string): string | null {
  const slot = slotSteps(task).find((s) => s.id === ref);
  if (!slot) return path.nodes.includes(ref) ? ref : null;
  const gc = path.group_choices.find((g) => g.startsWith(`${ref}:`));
  const choice = slot.choices.find((c) => `${ref}:${c.id}` === gc);
  return choice ? choice.output : null;
}

/** Every tool name appearing in the task (the agent-visible set), sorted. */
export function taskToolNames(task: MazeTask): string[] {
  return [...new Set([...nodeIndex(task).values()].map((l) => l.node.tool))].sort();
}

/** Arguments of a node given the outputs seen so far (by node id); a missing field leaves the argument out. */
export function bindArgs(
  task: MazeTask,
  path: TaskPath,
  node: TaskNode,
  outputs: ReadonlyMap<string, ToolResult>,
): ToolArgs {
  const args: ToolArgs = {};
  for (const [k, b] of Object.entries(node.args)) {
    if ('literal' in b) args[k] = b.literal;
    else {
      const src = resolveRef(task, path, b.ref);
      const out = src ? outputs.get(src) : undefined;
      if (out && out[b.field] !== undefined) args[k] = out[b.field];
    }
  }
  return args;
}

export interface CleanRun {
  ok: boolean;
  error?: string;
  args: Map<string, ToolArgs>;
  outputs: Map<string, ToolResult>;
  history: HistoryEntry[];
  answer: unknown;
}

/** Execute a path cleanly against the tool library (a fresh run: empty history). */
export function runCleanPath(task: MazeTask, path: TaskPath): CleanRun {
  const idx = nodeIndex(task);
  const outputs = new Map<string, ToolResult>();
  const argsBy = new Map<string, ToolArgs>();
  const history: HistoryEntry[] = [];
  for (const id of path.nodes) {
    const node = idx.get(id)?.node;
    if (!node)
      return {
        ok: false,
        error: `path ${path.id}: unknown node ${id}`,
        args: argsBy,
        outputs,
        history,
        answer: undefined,
      };
    const args = bindArgs(task, path, node, outputs);
    const r = callTool(node.tool, args, history);
    argsBy.set(id, args);
    outputs.set(id, r.result);
    if (r.kind !== 'clean') {
      return {
        ok: false,
        error: `path ${path.id}: ${id} (${node.tool}) failed: ${String(r.result.error)}`,
        args: argsBy,
        outputs,
        history,
        answer: undefined,
      };
    }
    history.push({ name: node.tool, args, result: r.result });
  }
  const src = resolveRef(task, path, task.answer.ref);
  const answer = src ? outputs.get(src)?.[task.answer.field] : undefined;
  return { ok: true, args: argsBy, outputs, history, answer };
}

// ---- loading -----------------------------------------------------------------------------------------------

export const DEFAULT_CASES_DIR = fileURLToPath(new URL('../../cases/maze/', import.meta.url));
export const taskFilePath = (dir: string, c: Complexity) => join(dir, `${c}.json`);

export function loadTaskFile(path: string): TaskFile {
  if (!existsSync(path)) throw new DataError(path, undefined, undefined, 'file not found');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new DataError(path, undefined, undefined, `invalid JSON: ${(e as Error).message}`);
  }
  // Validate task by task so the error names the task id, then the rest of the file (each task parsed once).
  const head = z
    .object({ tasks: z.array(z.unknown()) })
    .passthrough()
    .safeParse(raw);
  if (!head.success) throw dataErrorFromZod(path, undefined, head.error);
  const tasks = head.data.tasks.map((t, i) => {
    const r = MazeTask.safeParse(t);
    if (!r.success) throw dataErrorFromZod(path, (t as { id?: string })?.id ?? i, r.error);
    return r.data;
  });
  const r = TaskFileHead.safeParse(raw);
  if (!r.success) throw dataErrorFromZod(path, undefined, r.error);
  return { ...r.data, tasks };
}
/** A task file's fields but its tasks (checked one by one before). */
const TaskFileHead = TaskFile.extend({ tasks: z.array(z.unknown()) });

export function loadMazeTasks(dir = DEFAULT_CASES_DIR, complexities: readonly Complexity[] = COMPLEXITIES): MazeTask[] {
  return complexities.flatMap((c) => loadTaskFile(taskFilePath(dir, c)).tasks);
}
