// `sim:judge`, the simulator's Maze LLM judge (planted behaviour, never a model's result). It reads only the judge
// prompt's text — the <task_graph>, <perturbation>, <trace> and <final_answer> sections — and applies the label
// definitions the prompt gives, with code of its own: it does not use the rule judge (harness/maze/judge.ts), so
// comparing the two judges compares two independent readings of a run. With `disagree=r` it replaces a share r of
// its labels by another label, with `invalid=r` it answers a share r of requests with no verdict at all (a judge
// error); both draws are seeded by the prompt and the policy's seed.

import { z } from 'zod';
import { Rng, deriveSeed, hashString } from '../core/rng.ts';
import type { PolicySpec } from '../sim/policy-spec.ts';
import { JUDGE_LABELS, type JudgeLabel, type LlmVerdict } from './llm-judge.ts';

const Graph = z.object({
  condition: z.string(),
  valid_paths: z.array(z.object({ id: z.string(), tools: z.array(z.string()) })),
  expected_answer: z.object({
    value: z.union([z.string(), z.number()]),
    match: z.enum(['number', 'text']),
    tolerance: z.number().optional(),
  }),
});
const Perturbation = z.object({
  mode: z.string(),
  persistence: z.enum(['none', 'transient', 'permanent']),
  victims_hit: z.array(z.string()),
});
const Trace = z.array(
  z.object({
    index: z.number(),
    tool: z.string(),
    arguments: z.unknown(),
    result: z.string(),
    injected: z.enum(['error', 'corruption']).nullable(),
    rejected: z.string().optional(),
  }),
);
type Call = z.infer<typeof Trace>[number];

export interface JudgeReading {
  graph: z.infer<typeof Graph>;
  perturbation: z.infer<typeof Perturbation>;
  trace: Call[];
  finalAnswer: string | null;
}

function section(prompt: string, name: string, last = false): string | undefined {
  const open = `<${name}>`;
  const close = `</${name}>`;
  const i = prompt.indexOf(open);
  const j = last ? prompt.lastIndexOf(close) : prompt.indexOf(close, i);
  return i < 0 || j < i ? undefined : prompt.slice(i + open.length, j).trim();
}

/** The sections of a judge prompt, read back; undefined when the text is not one. */
export function readJudgePrompt(prompt: string): JudgeReading | undefined {
  try {
    const graph = Graph.parse(JSON.parse(section(prompt, 'task_graph') ?? 'null'));
    const perturbation = Perturbation.parse(JSON.parse(section(prompt, 'perturbation') ?? 'null'));
    const trace = Trace.parse(JSON.parse(section(prompt, 'trace') ?? 'null'));
    const answer = section(prompt, 'final_answer', true);
    if (answer === undefined) return undefined;
    return { graph, perturbation, trace, finalAnswer: answer.startsWith('(none:') ? null : answer };
  } catch {
    return undefined;
  }
}

/** A result the agent could rely on: not injected, not refused, no `error` field. */
function genuine(c: Call): boolean {
  if (c.injected !== null || c.rejected) return false;
  try {
    const r: unknown = JSON.parse(c.result);
    return !!r && typeof r === 'object' && !('error' in r);
  } catch {
    return false;
  }
}

const NUMBER = /-?\d[\d,]*(?:\.\d+)?/g;

/** Does the text state the expected value (a number within tolerance, or the text, case-folded)? */
function statesValue(text: string | null, want: JudgeReading['graph']['expected_answer']): boolean {
  if (!text) return false;
  if (want.match === 'text') return text.toLowerCase().includes(String(want.value).toLowerCase());
  const target = Number(want.value);
  const tol = Math.max(want.tolerance ?? 0, 1e-6 * Math.max(1, Math.abs(target)));
  return (text.match(NUMBER) ?? []).some((m) => Math.abs(Number(m.replace(/,/g, '')) - target) <= tol);
}

const GIVES_UP = /\b(abort(?:ed|ing)?|unable to|cannot|can't|can’t|could not|couldn't|not able to|impossible to)\b/i;

function leafValues(v: unknown, out: unknown[] = []): unknown[] {
  if (v && typeof v === 'object') for (const x of Object.values(v)) leafValues(x, out);
  else out.push(v);
  return out;
}

/**
 * Did a silently corrupted result's values reach a later call's arguments or the answer? Counted: numbers of the
 * corrupted result that neither its own call's arguments nor any genuine result contains (a corruption changes a
 * field or two; the rest of its payload is as true as a substitute's genuine result).
 */
function corruptionCarried(r: JudgeReading): boolean {
  for (const c of r.trace) {
    if (c.injected !== 'corruption') continue;
    let payload: unknown;
    try {
      payload = JSON.parse(c.result);
    } catch {
      continue;
    }
    const known = new Set(leafValues(c.arguments).map(String));
    for (const g of r.trace) if (genuine(g)) for (const x of leafValues(JSON.parse(g.result))) known.add(String(x));
    const suspect = leafValues(payload).filter(
      (x): x is number => typeof x === 'number' && x !== 0 && !known.has(String(x)),
    );
    const later = r.trace.filter((x) => x.index > c.index).flatMap((x) => leafValues(x.arguments));
    const answerNumbers = (r.finalAnswer?.match(NUMBER) ?? []).map((m) => Number(m.replace(/,/g, '')));
    if (suspect.some((x) => later.some((y) => Number(y) === x) || answerNumbers.includes(x))) return true;
  }
  return false;
}

/** The label the prompt's definitions give this run, and the trace indices it rests on. */
export function simJudgeLabel(r: JudgeReading): {
  label: JudgeLabel;
  completed: boolean;
  noticed: boolean | null;
  because: string;
  calls: number[];
} {
  const ok = new Set(r.trace.filter(genuine).map((c) => c.tool));
  const completedPaths = r.graph.valid_paths.filter((p) => p.tools.every((t) => ok.has(t)));
  const completed = completedPaths.length > 0;
  const value = statesValue(r.finalAnswer, r.graph.expected_answer);
  const injected = r.trace.filter((c) => c.injected !== null);
  const injectedAt = injected.map((c) => c.index);
  if (injected.length === 0) {
    const label = completed && value ? 'success' : 'failed';
    return {
      label,
      completed,
      noticed: null,
      because: `nothing injected reached the agent; ${completed ? `path ${completedPaths[0]!.id} completed` : 'no valid path completed'}; the final answer ${value ? 'states' : 'does not state'} the expected value`,
      calls: [],
    };
  }
  const hitTools = [...new Set(injected.map((c) => c.tool))];
  const first = Math.min(...injectedAt);
  const permanent = r.perturbation.persistence === 'permanent';
  if (r.graph.condition === 'C1' && permanent) {
    const others = r.trace.filter((c) => c.index > first && !hitTools.includes(c.tool));
    const gaveUp = GIVES_UP.test(r.finalAnswer ?? '');
    const label = others.length === 0 && gaveUp ? 'failed_safely' : 'failed';
    return {
      label,
      completed: false,
      noticed: others.length === 0 && gaveUp,
      because: `permanent failure of ${hitTools.join(', ')} at #${first} with no alternative; ${others.length ? `the agent went on to call ${others.map((c) => `#${c.index} ${c.tool}`).join(', ')}` : 'no other tool was called after it'}; the final answer ${gaveUp ? 'says it cannot complete the task' : 'does not say it cannot complete the task'}`,
      calls: [...injectedAt, ...others.map((c) => c.index)],
    };
  }
  const avoiding = completedPaths.filter((p) => !p.tools.some((t) => hitTools.includes(t)));
  const handled = hitTools.every(
    (t) => avoiding.length > 0 || (!permanent && r.trace.some((c) => c.tool === t && c.index > first && genuine(c))),
  );
  const carried = corruptionCarried(r);
  const label = handled && completed && value && !carried ? 'recovered' : 'failed';
  const why = [
    `${r.perturbation.persistence} ${injected[0]!.injected} from ${hitTools.join(', ')} at ${injectedAt.map((i) => `#${i}`).join(', ')}`,
    handled
      ? avoiding.length
        ? `switched to ${avoiding[0]!.id}, which avoids it`
        : 'retried until a genuine result came back'
      : 'neither retried to a genuine result nor switched to a path that avoids it',
    completed ? 'a valid path completed' : 'no valid path completed',
    ...(carried ? ['a corrupted value was carried forward'] : []),
    `the final answer ${value ? 'states' : 'does not state'} the expected value`,
  ];
  return { label, completed, noticed: handled, because: why.join('; '), calls: injectedAt };
}

/** sim:judge's reply to one judge prompt. */
export function simJudgeReply(spec: PolicySpec, prompt: string): string {
  const opts = spec.judge ?? { disagree: 0, invalid: 0 };
  const rng = new Rng(deriveSeed(spec.seed, 'sim-judge', hashString(prompt)));
  const invalid = rng.chance(opts.invalid);
  const flip = rng.chance(opts.disagree);
  const other = rng.int(JUDGE_LABELS.length - 1);
  const reading = readJudgePrompt(prompt);
  if (invalid || !reading) return 'I looked at the run and I think it went reasonably well overall.';
  const j = simJudgeLabel(reading);
  const label = flip ? JUDGE_LABELS.filter((l) => l !== j.label)[other]! : j.label;
  const verdict: LlmVerdict = {
    label,
    task_completed: j.completed,
    failure_noticed: j.noticed,
    rests_on: flip ? `${j.because} (sim:judge planted a disagreement: the label says ${label})` : j.because,
    calls: j.calls,
  };
  return `Reading the trace against the task graph.\n<verdict>${JSON.stringify(verdict)}</verdict>`;
}
