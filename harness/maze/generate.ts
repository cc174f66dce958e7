// Maze task generator: `npx tsx harness/maze/generate.ts --seed N [--out DIR]` rewrites cases/maze/c1..c4.json
// deterministically. Each task comes from a graph template; valid paths are enumerated from the graph; every
// path is executed against the tool library to fix the expected answer; victims and their perturbed payloads
// (explicit messages for P1/P2, a detectable implicit corruption for P3/P4) are chosen here and written into
// the task file so runs are reproducible.

import { writeFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Rng, deriveSeed } from '../core/rng.ts';
import { changedLeaves, corruptionsOf, type Corruption } from './corrupt.ts';
import { DETECTORS, detectImplausible } from './detectors.ts';
import { numbersIn, valuesEqual } from './judge.ts';
import {
  COMPLEXITIES,
  DEFAULT_CASES_DIR,
  enumeratePaths,
  nodeIndex,
  runCleanPath,
  slotSteps,
  taskFilePath,
  type CleanRun,
  type Complexity,
  type MazeTask,
  type TaskFile,
  type Victim,
} from './task.ts';
import { TEMPLATES, type TemplateSpec } from './templates.ts';
import { mustGetTool } from './tools/index.ts';

export const GENERATOR = 'harness/maze/generate.ts v1';
export const DEFAULT_SEED = 7;
export const TASKS_PER_COMPLEXITY = 48;

const TRANSIENT_ERRORS = [
  '503 Service Unavailable: upstream timeout while contacting the data provider',
  '429 Too Many Requests: rate limit exceeded for this minute',
  'Connection reset by peer while reading the response',
  '504 Gateway Timeout: the backend did not answer in time',
  'Temporary failure in name resolution for the service host',
];
const PERMANENT_ERRORS = [
  '403 Forbidden: this service is permanently disabled for your organisation',
  '410 Gone: this endpoint has been decommissioned',
  'Access revoked: your credentials for this provider were withdrawn by the administrator',
  'Deprecated: this integration was retired on 2025-01-31 and no longer serves requests',
  '451 Unavailable For Legal Reasons: this data cannot be served in your region',
];
/** A P2 message must not invite a retry. */
export const RETRY_INVITATION = /retry|try again|again later|later|shortly|temporar|transient|in a moment/i;

/** Every scalar leaf (strings and numbers) of a value. */
export function scalarLeaves(v: unknown, out: Array<string | number> = []): Array<string | number> {
  if (v && typeof v === 'object') for (const x of Object.values(v as object)) scalarLeaves(x, out);
  else if (typeof v === 'string' || typeof v === 'number') out.push(v);
  return out;
}

/** Clean values a corruption must not coincide with (so the strict judge can tell corrupted from clean). */
export function forbiddenValues(
  runs: CleanRun[],
  query: string,
): { leaves: Array<string | number>; queryNumbers: number[]; queryLower: string } {
  const leaves: Array<string | number> = [];
  for (const r of runs) {
    for (const a of r.args.values()) scalarLeaves(a, leaves);
    for (const o of r.outputs.values()) scalarLeaves(o, leaves);
  }
  return { leaves, queryNumbers: numbersIn(query), queryLower: query.toLowerCase() };
}

export function corruptionIsDistinct(values: Array<string | number>, f: ReturnType<typeof forbiddenValues>): boolean {
  if (values.length === 0) return false;
  return values.every(
    (v) =>
      !f.leaves.some((x) => valuesEqual(x, v)) &&
      (typeof v === 'number'
        ? !f.queryNumbers.some((n) => valuesEqual(n, v))
        : !f.queryLower.includes(v.toLowerCase())),
  );
}

function sameAnswer(a: unknown, b: unknown, tol: number): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= tol + 1e-9;
  return typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** Where a victim node runs cleanly: its arguments, result and the history before it (first path containing it). */
function victimContext(task: MazeTask, runs: CleanRun[], nodeId: string) {
  const k = task.paths.findIndex((p) => p.nodes.includes(nodeId));
  const run = runs[k]!;
  const pos = task.paths[k]!.nodes.indexOf(nodeId);
  return { args: run.args.get(nodeId)!, clean: run.outputs.get(nodeId)!, history: run.history.slice(0, pos) };
}

function pickCorruption(
  rng: Rng,
  task: MazeTask,
  runs: CleanRun[],
  nodeId: string,
): (Corruption & { corrupted_values: Array<string | number> }) | null {
  const tool = mustGetTool(nodeIndex(task).get(nodeId)!.node.tool);
  const ctx = victimContext(task, runs, nodeId);
  const forbidden = forbiddenValues(runs, task.query);
  const byDetector = DETECTORS.map((d) =>
    corruptionsOf(d, tool, ctx.args, ctx.clean, ctx.history)
      .map((c) => ({ ...c, corrupted_values: changedLeaves(ctx.clean, c.payload) }))
      .filter((c) => corruptionIsDistinct(c.corrupted_values, forbidden)),
  ).filter((list) => list.length > 0);
  if (byDetector.length === 0) return null;
  return rng.pick(rng.pick(byDetector));
}

function makeVictim(
  rng: Rng,
  task: MazeTask,
  runs: CleanRun[],
  group: string,
  choice: string | null,
  nodeId: string,
): Victim | null {
  const c = pickCorruption(rng, task, runs, nodeId);
  if (!c) return null;
  return {
    group,
    choice,
    node: nodeId,
    tool: nodeIndex(task).get(nodeId)!.node.tool,
    explicit: { P1: rng.pick(TRANSIENT_ERRORS), P2: rng.pick(PERMANENT_ERRORS) },
    implicit: { detector: c.detector, field: c.field, payload: c.payload, corrupted_values: c.corrupted_values },
  };
}

/** Turn a template instance into a task, or null when this draw is unusable (then the caller redraws). */
export function assembleTask(
  spec: TemplateSpec,
  id: string,
  complexity: Complexity,
  template: string,
  index: number,
  rng: Rng,
): MazeTask | null {
  const task: MazeTask = {
    id,
    complexity,
    template,
    domains: spec.domains,
    query: spec.query,
    steps: spec.steps,
    answer: { ...spec.answer, value: 0 },
    paths: [],
    victims: [],
  };
  task.paths = enumeratePaths(task);
  const runs = task.paths.map((p) => runCleanPath(task, p));
  if (runs.some((r) => !r.ok)) return null;
  const value = runs[0]!.answer;
  if (typeof value !== 'number' && typeof value !== 'string') return null;
  const tol = spec.answer.tolerance ?? 0;
  if (!runs.every((r) => sameAnswer(r.answer, value, tol))) return null;
  task.answer.value = value;
  if (spec.query.toLowerCase().includes(String(value).toLowerCase())) return null;
  // A clean result that looks implausible would make careful agents distrust the truth: redraw.
  const idx = nodeIndex(task);
  for (const r of runs) {
    for (const [nid, out] of r.outputs)
      if (detectImplausible(mustGetTool(idx.get(nid)!.node.tool), r.args.get(nid)!, out)) return null;
  }

  const victims: Victim[] = [];
  if (complexity === 'c1') {
    const chain = task.paths[0]!.nodes;
    const eligible = chain.filter((n) => pickCorruption(new Rng(0), task, runs, n) !== null);
    if (eligible.length === 0) return null;
    const last = chain[chain.length - 1]!;
    const notLast = eligible.filter((n) => n !== last);
    // Alternate: even tasks put the victim on the last node (abort phrase required), odd ones earlier.
    const nodeId = index % 2 === 0 && eligible.includes(last) ? last : notLast.length > 0 ? rng.pick(notLast) : last;
    const v = makeVictim(rng, task, runs, 'main', null, nodeId);
    if (!v) return null;
    victims.push(v);
  } else {
    for (const slot of slotSteps(task)) {
      for (const ch of slot.choices) {
        const v = makeVictim(rng, task, runs, slot.id, ch.id, ch.nodes[0]!.id);
        if (!v) return null;
        victims.push(v);
      }
    }
  }
  task.victims = victims;
  return task;
}

export function generateTasks(seed: number, complexity: Complexity, count = TASKS_PER_COMPLEXITY): MazeTask[] {
  const templates = TEMPLATES[complexity];
  const out: MazeTask[] = [];
  const queries = new Set<string>();
  for (let i = 0; i < count; i++) {
    const t = templates[i % templates.length]!;
    const id = `${complexity.toUpperCase()}_task_${String(i + 1).padStart(3, '0')}`;
    let task: MazeTask | null = null;
    for (let attempt = 0; attempt < 100 && !task; attempt++) {
      const rng = new Rng(deriveSeed(seed, 'maze', complexity, i, attempt));
      const candidate = assembleTask(t.build(rng), id, complexity, t.id, i, rng);
      if (candidate && !queries.has(candidate.query)) task = candidate;
    }
    if (!task) throw new Error(`generate: template ${t.id} produced no usable task for ${id}`);
    queries.add(task.query);
    out.push(task);
  }
  return out;
}

export function buildTaskFile(seed: number, complexity: Complexity, count = TASKS_PER_COMPLEXITY): TaskFile {
  return { version: 1, complexity, seed, generated_by: GENERATOR, tasks: generateTasks(seed, complexity, count) };
}

export function renderTaskFile(file: TaskFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

export function writeTaskFiles(dir: string, seed: number, count = TASKS_PER_COMPLEXITY): Record<Complexity, number> {
  mkdirSync(dir, { recursive: true });
  const counts = {} as Record<Complexity, number>;
  for (const c of COMPLEXITIES) {
    const file = buildTaskFile(seed, c, count);
    writeFileSync(taskFilePath(dir, c), renderTaskFile(file));
    counts[c] = file.tasks.length;
  }
  return counts;
}

function main(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: { seed: { type: 'string' }, out: { type: 'string' }, count: { type: 'string' } },
    strict: true,
  });
  const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
  const count = values.count === undefined ? TASKS_PER_COMPLEXITY : Number(values.count);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer (got '${values.seed}')`);
  if (!Number.isInteger(count) || count < 1)
    throw new Error(`--count must be a positive integer (got '${values.count}')`);
  const dir = values.out ?? DEFAULT_CASES_DIR;
  const counts = writeTaskFiles(dir, seed, count);
  console.log(`maze generate: seed ${seed} → ${dir}: ${COMPLEXITIES.map((c) => `${c}=${counts[c]}`).join(' ')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    console.error(`maze generate: ${(e as Error).message}`);
    process.exit(2);
  }
}
