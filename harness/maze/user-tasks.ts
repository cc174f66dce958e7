// A user's task graphs (`--tasks FILE`, docs/maze-tools.md): a YAML or JSON file of tasks. A task written in
// full (paths, victims, answer value — the shape of cases/maze/*.json) is checked as it is; a task written as a
// graph only (query, steps, answer field) is completed the way the generator completes its own: paths
// enumerated, every path run against the tool library, the answer taken from the runs, victims and their
// corruptions drawn with a seed derived from the file's seed and the task id. Every task then passes the linter,
// or the file is refused with one line naming the file, the task and the problem.

import { readFileSync } from 'node:fs';
import { readJsonOrYaml } from '../core/data-file.ts';
import { z } from 'zod';
import { DataError, firstZodIssue } from '../core/errors.ts';
import { deriveSeed, Rng } from '../core/rng.ts';
import { assembleTask } from './generate.ts';
import { lintTask } from './lint.ts';
import { Answer, COMPLEXITIES, enumeratePaths, MazeTask, runCleanPath, Step, TaskId, type Complexity } from './task.ts';
import { EXPR_BUDGET, ExprError, withTotalBudget } from './tools/expr.ts';
import { getTool } from './tools/index.ts';

/** A task as a user writes it: the graph, the query and which output answers it. */
export const AuthoredTask = z
  .object({
    id: TaskId,
    complexity: z.enum(COMPLEXITIES).optional(),
    template: z.string().optional(),
    domains: z.array(z.string()).min(1),
    query: z.string().min(10),
    steps: z.array(Step).min(1),
    answer: Answer.omit({ value: true }).extend({ value: z.union([z.string(), z.number()]).optional() }),
  })
  .strict();

export const UserTaskFile = z
  .object({
    version: z.literal(1),
    /** Complexity of tasks that do not name their own. */
    complexity: z.enum(COMPLEXITIES).optional(),
    /** Seed of the victim and corruption draws (default 7, the built-in tasks' seed). */
    seed: z.number().int().default(7),
    generated_by: z.string().optional(),
    tasks: z.array(z.record(z.string(), z.unknown())).min(1),
  })
  .strict();

function fail(file: string, task: string | number | undefined, field: string, problem: string): never {
  throw new DataError(task === undefined ? file : `${file}: task ${task}`, undefined, field, problem);
}

/** A tool the steps name that the active library lacks, or null. */
function unknownTool(steps: readonly Step[]): string | null {
  for (const s of steps) {
    const nodes = s.kind === 'node' ? [s.node] : s.choices.flatMap((c) => c.nodes);
    for (const n of nodes) if (!getTool(n.tool)) return n.tool;
  }
  return null;
}

/** Why no path of an authored task runs cleanly, or null. */
function pathProblem(task: MazeTask): string | null {
  for (const p of task.paths) {
    const r = runCleanPath(task, p);
    if (!r.ok) return r.error ?? `path ${p.id} failed`;
  }
  return null;
}

/** Load, complete and lint a user's task file; tasks of `categories` only. */
export function loadUserTasks(file: string, categories: readonly Complexity[] = COMPLEXITIES): MazeTask[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return fail(file, undefined, '', 'file not found');
  }
  const raw = readJsonOrYaml(text, file);
  const head = UserTaskFile.safeParse(raw);
  if (!head.success) {
    const { field, message } = firstZodIssue(head.error);
    return fail(file, undefined, field, message);
  }
  const seen = new Set<string>();
  const out: MazeTask[] = [];
  // every evaluation made to complete and check the file's tasks counts against one total
  withTotalBudget(EXPR_BUDGET.fileSteps, 'one task file', () =>
    head.data.tasks.forEach((t, i) => {
      const label = typeof t.id === 'string' ? t.id : i;
      try {
        const task = completeTask(file, head.data, t, i, label);
        if (seen.has(task.id)) return fail(file, label, 'id', 'duplicate task id');
        seen.add(task.id);
        const issue = lintTask(task)[0];
        if (issue) return fail(file, label, issue.rule, issue.message);
        if (categories.includes(task.complexity)) out.push(task);
      } catch (err) {
        // an expression over its budget outside a tool call (a tool's entity list) is this task's problem
        if (err instanceof ExprError) return fail(file, label, '', err.message);
        throw err;
      }
    }),
  );
  return out;
}

/** One task of the file, as written in full or completed from its graph. */
function completeTask(
  file: string,
  head: z.infer<typeof UserTaskFile>,
  t: Record<string, unknown>,
  i: number,
  label: string | number,
): MazeTask {
  const complete = 'paths' in t || 'victims' in t;
  let task: MazeTask;
  if (complete) {
    const r = MazeTask.safeParse({ complexity: head.complexity, ...t });
    if (!r.success) {
      const { field, message } = firstZodIssue(r.error);
      return fail(file, label, field, message);
    }
    task = r.data;
    const missing = unknownTool(task.steps);
    if (missing)
      return fail(file, label, 'steps', `no tool '${missing}' in the library (the built-in tools and --tools files)`);
  } else {
    const r = AuthoredTask.safeParse(t);
    if (!r.success) {
      const { field, message } = firstZodIssue(r.error);
      return fail(file, label, field, message);
    }
    const a = r.data;
    const complexity = a.complexity ?? head.complexity;
    if (!complexity)
      return fail(file, label, 'complexity', 'give the task (or the file) a complexity: c1, c2, c3 or c4');
    const missing = unknownTool(a.steps);
    if (missing)
      return fail(file, label, 'steps', `no tool '${missing}' in the library (the built-in tools and --tools files)`);
    const draft: MazeTask = {
      id: a.id,
      complexity,
      template: a.template ?? 'user',
      domains: a.domains,
      query: a.query,
      steps: a.steps,
      answer: { ...a.answer, value: 0 },
      paths: [],
      victims: [],
    };
    try {
      draft.paths = enumeratePaths(draft);
    } catch (e) {
      return fail(file, label, 'steps', (e as Error).message);
    }
    const bad = pathProblem(draft);
    if (bad) return fail(file, label, 'steps', bad);
    const spec = {
      steps: a.steps,
      answer: {
        ref: a.answer.ref,
        field: a.answer.field,
        match: a.answer.match,
        ...(a.answer.tolerance !== undefined ? { tolerance: a.answer.tolerance } : {}),
      },
      query: a.query,
      domains: a.domains,
    };
    const built = assembleTask(
      spec,
      a.id,
      complexity,
      draft.template,
      i,
      new Rng(deriveSeed(head.seed, 'maze-user', a.id)),
    );
    if (!built) {
      return fail(
        file,
        label,
        '',
        'cannot be completed: its paths disagree on the answer, the query contains the answer, a clean result looks implausible to the detectors, or a victim tool has no corruption its checks would catch',
      );
    }
    if (
      a.answer.value !== undefined &&
      String(a.answer.value).toLowerCase() !== String(built.answer.value).toLowerCase()
    ) {
      return fail(
        file,
        label,
        'answer.value',
        `the paths give ${String(built.answer.value)}, not ${String(a.answer.value)}`,
      );
    }
    task = built;
  }
  return task;
}
