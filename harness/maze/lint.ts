// Maze task linter: `npx tsx harness/maze/lint.ts [--dir cases/maze]` — exit 1 when any task breaks a rule.
// Checks, per task: graph well-formed (tools exist, one node per tool, bindings point to earlier nodes and to
// real output fields, required parameters bound); stored paths equal the paths enumerated from the graph and
// the shape fits the complexity; every path runs cleanly and yields the expected answer; no clean result trips
// a detector; exactly one victim per path in each perturbation group; explicit messages (P2 must not invite a
// retry); implicit payloads schema-valid, without `error`, caught by their recorded detector, with
// corrupted_values equal to what differs from the clean result and distinct from every clean value; the
// agent-visible tool set is exactly the path tools and leaks nothing hidden; the query names no tool and not
// the answer.

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stableStringify } from '../core/hash.ts';
import { changedLeaves } from './corrupt.ts';
import { findImplausibilities, detectImplausible } from './detectors.ts';
import { MazeSession } from './engine.ts';
import { RETRY_INVITATION, corruptionIsDistinct, forbiddenValues } from './generate.ts';
import {
  COMPLEXITIES,
  DEFAULT_CASES_DIR,
  enumeratePaths,
  PATH_LIMITS,
  pathLimitProblem,
  loadMazeTasks,
  nodeIndex,
  resolveRef,
  runCleanPath,
  slotSteps,
  taskToolNames,
  type MazeTask,
} from './task.ts';
import { activeTools, checkOutput, getTool, mustGetTool } from './tools/index.ts';
import { pushTo } from '../core/push-to.ts';

export interface LintIssue {
  task: string;
  rule: string;
  message: string;
}

const HIDDEN_KEYS = [
  'victim',
  'victims',
  'perturbation',
  'payload',
  'corrupted_values',
  'group_choices',
  'paths',
  'expected',
  'detector',
];

export function lintTask(task: MazeTask): LintIssue[] {
  const issues: LintIssue[] = [];
  const bad = (rule: string, message: string) => issues.push({ task: task.id, rule, message });
  const idx = nodeIndex(task);

  // -- graph ------------------------------------------------------------------------------------------------
  const allNodes = [...idx.values()].map((l) => l.node);
  const nodeCount = task.steps.reduce(
    (n, s) => n + (s.kind === 'node' ? 1 : s.choices.reduce((m, c) => m + c.nodes.length, 0)),
    0,
  );
  if (nodeCount !== idx.size) bad('graph', 'node ids are not unique');
  const tools = allNodes.map((n) => n.tool);
  if (new Set(tools).size !== tools.length)
    bad('graph', 'a tool appears on more than one node (victims are selected by tool name)');
  const slotIds = slotSteps(task).map((s) => s.id);
  if (new Set(slotIds).size !== slotIds.length || slotIds.some((s) => idx.has(s)))
    bad('graph', 'slot ids must be unique and distinct from node ids');
  for (const s of slotSteps(task)) {
    for (const c of s.choices)
      if (!c.nodes.some((n) => n.id === c.output))
        bad('graph', `slot ${s.id} choice ${c.id}: output ${c.output} is not one of its nodes`);
  }
  for (const n of allNodes) {
    const tool = getTool(n.tool);
    if (!tool) {
      bad('graph', `${n.id}: unknown tool ${n.tool}`);
      continue;
    }
    const params = (tool.parameters.properties ?? {}) as Record<string, unknown>;
    for (const k of Object.keys(n.args)) if (!(k in params)) bad('graph', `${n.id}: ${n.tool} has no parameter ${k}`);
    for (const k of (tool.parameters.required ?? []) as string[])
      if (!(k in n.args)) bad('graph', `${n.id}: required parameter ${k} is not bound`);
  }

  // -- paths ------------------------------------------------------------------------------------------------
  // a graph or a stored list over the bounds is refused before anything is expanded or run
  const over =
    pathLimitProblem(task) ??
    (task.paths.length > PATH_LIMITS.paths
      ? `${task.paths.length} stored paths, over the limit of ${PATH_LIMITS.paths}`
      : null);
  if (over) return [...issues, { task: task.id, rule: 'paths', message: over }];
  const enumerated = enumeratePaths(task);
  if (stableStringify(enumerated) !== stableStringify(task.paths))
    bad('paths', 'stored paths differ from the paths enumerated from the graph');
  const slots = slotSteps(task);
  const shape: Record<string, () => string | null> = {
    c1: () => (slots.length === 0 && task.paths.length === 1 ? null : 'C1 must be one chain (no slots, one path)'),
    c2: () =>
      slots.length === 1 && slots[0]!.choices.length >= 2 && slots[0]!.choices.every((c) => c.nodes.length === 1)
        ? null
        : 'C2 must have exactly one slot of k ≥ 2 single-tool substitutes',
    c3: () =>
      slots.length >= 1 && slots.every((s) => s.choices.some((c) => c.nodes.length >= 2))
        ? null
        : 'C3 slots must offer alternatives that differ by whole sub-chains (some choice with ≥ 2 tools)',
    c4: () =>
      slots.length >= 2 && task.paths.length === slots.reduce((n, s) => n * s.choices.length, 1)
        ? null
        : 'C4 needs ≥ 2 independent slots; paths = their product',
  };
  const shapeProblem = shape[task.complexity]!();
  if (shapeProblem) bad('shape', shapeProblem);
  for (const p of task.paths) {
    for (const id of p.nodes) {
      for (const [arg, b] of Object.entries(idx.get(id)?.node.args ?? {})) {
        if (!('ref' in b)) continue;
        const src = resolveRef(task, p, b.ref);
        if (!src || p.nodes.indexOf(src) < 0 || p.nodes.indexOf(src) >= p.nodes.indexOf(id)) {
          bad('bindings', `${p.id}: ${id}.${arg} refers to ${b.ref}, which is not an earlier node on the path`);
          continue;
        }
        const props = (mustGetTool(idx.get(src)!.node.tool).output.properties ?? {}) as Record<string, unknown>;
        if (!(b.field in props))
          bad(
            'bindings',
            `${p.id}: ${id}.${arg} binds ${src}.${b.field}, which ${idx.get(src)!.node.tool} does not return`,
          );
      }
    }
  }
  if (issues.length > 0) return issues; // the rest needs a well-formed graph

  // -- execution --------------------------------------------------------------------------------------------
  const runs = task.paths.map((p) => runCleanPath(task, p));
  runs.forEach((r, i) => {
    const p = task.paths[i]!;
    if (!r.ok) return bad('execution', r.error ?? `${p.id} failed`);
    const a = task.answer;
    const ok =
      a.match === 'number'
        ? typeof r.answer === 'number' && Math.abs(r.answer - Number(a.value)) <= (a.tolerance ?? 0) + 1e-9
        : String(r.answer).toLowerCase() === String(a.value).toLowerCase();
    if (!ok) bad('execution', `${p.id} yields ${JSON.stringify(r.answer)}, expected ${JSON.stringify(a.value)}`);
    for (const [nid, out] of r.outputs) {
      const tool = mustGetTool(idx.get(nid)!.node.tool);
      const so = checkOutput(tool, out);
      if (so) bad('execution', `${p.id}: ${nid}: ${so}`);
      const f = detectImplausible(tool, r.args.get(nid)!, out);
      if (f) bad('detectors', `${p.id}: clean result of ${nid} looks implausible (${f.reason})`);
    }
  });
  if (issues.length > 0) return issues;

  // -- victims ----------------------------------------------------------------------------------------------
  const groups = new Map<string, typeof task.victims>();
  for (const v of task.victims) pushTo(groups, v.group, v);
  if (task.complexity === 'c1') {
    if (task.victims.length !== 1 || task.victims[0]!.group !== 'main')
      bad('victims', 'C1 has exactly one fixed victim in group "main"');
  } else {
    for (const s of slots) {
      const vs = groups.get(s.id) ?? [];
      for (const c of s.choices) {
        const v = vs.find((x) => x.choice === c.id);
        if (!v || v.node !== c.nodes[0]!.id)
          bad('victims', `slot ${s.id} choice ${c.id}: its entry node ${c.nodes[0]!.id} must be a victim candidate`);
      }
      if (vs.length !== s.choices.length) bad('victims', `slot ${s.id}: one victim candidate per choice`);
    }
    if ([...groups.keys()].some((g) => !slotIds.includes(g))) bad('victims', 'victim group names no slot');
  }
  for (const v of task.victims) {
    const loc = idx.get(v.node);
    if (!loc || loc.node.tool !== v.tool) bad('victims', `victim ${v.node} does not match its tool ${v.tool}`);
    if (task.complexity !== 'c1' && (loc?.slot !== v.group || loc?.choice !== v.choice))
      bad('victims', `victim ${v.node} is not in slot ${v.group} choice ${v.choice}`);
  }
  for (const p of task.paths) {
    const perGroup = new Map<string, number>();
    for (const v of task.victims) if (p.nodes.includes(v.node)) perGroup.set(v.group, (perGroup.get(v.group) ?? 0) + 1);
    for (const g of groups.keys())
      if ((perGroup.get(g) ?? 0) !== 1)
        bad('victims', `${p.id} has ${perGroup.get(g) ?? 0} victims in group ${g} (exactly one required)`);
    if (task.complexity !== 'c4' && [...perGroup.values()].reduce((a, b) => a + b, 0) !== 1)
      bad('victims', `${p.id} must contain exactly one victim`);
  }
  const forbidden = forbiddenValues(runs, task.query);
  for (const v of task.victims) {
    if (RETRY_INVITATION.test(v.explicit.P2))
      bad('explicit', `${v.node}: the P2 message invites a retry: "${v.explicit.P2}"`);
    const tool = mustGetTool(v.tool);
    const payload = v.implicit.payload;
    if ('error' in payload) bad('implicit', `${v.node}: payload has an error key`);
    const so = checkOutput(tool, payload);
    if (so) bad('implicit', `${v.node}: payload is not schema-valid: ${so}`);
    const k = task.paths.findIndex((p) => p.nodes.includes(v.node));
    const args = runs[k]!.args.get(v.node)!;
    const clean = runs[k]!.outputs.get(v.node)!;
    if (!findImplausibilities(tool, args, payload).some((f) => f.detector === v.implicit.detector)) {
      bad('implicit', `${v.node}: detector ${v.implicit.detector} does not flag the payload`);
    }
    const changed = changedLeaves(clean, payload);
    if (
      stableStringify([...changed].map(String).sort()) !==
      stableStringify([...v.implicit.corrupted_values].map(String).sort())
    ) {
      bad(
        'implicit',
        `${v.node}: corrupted_values ${JSON.stringify(v.implicit.corrupted_values)} ≠ leaves that differ from the clean result ${JSON.stringify(changed)}`,
      );
    }
    if (!corruptionIsDistinct(v.implicit.corrupted_values, forbidden))
      bad(
        'implicit',
        `${v.node}: a corrupted value equals a clean value of the task (strict judge could not tell them apart)`,
      );
  }

  // -- agent-visible surface --------------------------------------------------------------------------------
  const session = new MazeSession(task, 'P0');
  const visible = session.tools();
  const pathTools = [...new Set(task.paths.flatMap((p) => p.tools))].sort();
  const visibleNames = visible.map((t) => t.function.name).sort();
  if (
    stableStringify(visibleNames) !== stableStringify(pathTools) ||
    stableStringify(visibleNames) !== stableStringify(taskToolNames(task))
  ) {
    bad(
      'visible_tools',
      `agent-visible tools ${visibleNames.join(',')} ≠ tools on the task's paths ${pathTools.join(',')}`,
    );
  }
  const keys = new Set<string>();
  const collectKeys = (x: unknown) => {
    if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) keys.add(k), collectKeys(v);
  };
  collectKeys(visible);
  for (const k of HIDDEN_KEYS) if (keys.has(k)) bad('visible_tools', `tool definitions contain a hidden field "${k}"`);
  const visibleText = JSON.stringify(visible).toLowerCase();
  const secrets: string[] = [task.id, ...task.victims.flatMap((v) => [v.explicit.P1, v.explicit.P2])];
  for (const v of task.victims)
    for (const x of v.implicit.corrupted_values) if (String(x).length >= 4) secrets.push(String(x));
  if (String(task.answer.value).length >= 4) secrets.push(String(task.answer.value));
  for (const s of secrets)
    if (visibleText.includes(s.toLowerCase())) bad('visible_tools', `tool definitions leak task data: "${s}"`);

  // -- query ------------------------------------------------------------------------------------------------
  const q = task.query.toLowerCase();
  for (const t of activeTools()) {
    const forms = [t.name, t.name.replace(/_/g, ' ')];
    for (const f of forms)
      if (new RegExp(`(^|[^a-z0-9_])${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^a-z0-9_])`).test(q))
        bad('query', `query names a tool: "${f}"`);
  }
  if (q.includes(String(task.answer.value).toLowerCase())) bad('query', 'query contains the expected answer');
  for (const v of task.victims)
    for (const x of v.implicit.corrupted_values)
      if (typeof x === 'string' && x.length >= 4 && q.includes(x.toLowerCase()))
        bad('query', `query contains corrupted value ${x}`);
  for (const w of ['victim', 'perturb', 'path p', 'group_choice'])
    if (q.includes(w)) bad('query', `query mentions "${w}"`);
  return issues;
}

export function lintTasks(tasks: readonly MazeTask[]): LintIssue[] {
  const issues: LintIssue[] = [];
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.id)) issues.push({ task: t.id, rule: 'ids', message: 'duplicate task id' });
    seen.add(t.id);
    issues.push(...lintTask(t));
  }
  return issues;
}

function main(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { dir: { type: 'string' } }, strict: true });
  const dir = values.dir ?? DEFAULT_CASES_DIR;
  const tasks = loadMazeTasks(dir, COMPLEXITIES);
  const issues = lintTasks(tasks);
  for (const i of issues) console.log(`${i.task}: [${i.rule}] ${i.message}`);
  const per = COMPLEXITIES.map((c) => `${c}=${tasks.filter((t) => t.complexity === c).length}`).join(' ');
  console.log(`maze lint: ${tasks.length} tasks (${per}), ${issues.length} issue(s)`);
  return issues.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exit(main(process.argv.slice(2)));
  } catch (e) {
    console.error(`maze lint: ${(e as Error).message}`);
    process.exit(2);
  }
}
