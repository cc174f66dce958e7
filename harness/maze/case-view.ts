import {
  arr,
  type CaseInput,
  type CaseProblem,
  type CaseView,
  conversationSections,
  num,
  obj,
  pretty,
  prettyArgs,
  type ScorerView,
  type Section,
  type SuiteCase,
  tagsOf,
  text,
} from '../kit/case-view/index.ts';

/** Maze keeps the judge's reading beside the inference: `c1/inferences/X_P2_inference.json` → `c1/evaluations/X_P2_eval.json`. */
export function mazeEvaluationPath(trace: string): string | null {
  const m = /^(.*)inferences\/([^/]+)_inference\.json$/.exec(trace);
  return m ? `${m[1]}evaluations/${m[2]}_eval.json` : null;
}

/** Maze in `toolgauge view`: the task, the perturbation the tools applied, the judge's reading of the trace, the conversation. */
function mazeCase(input: CaseInput): SuiteCase {
  const m = input.meta;
  const t = obj(input.trace);
  const evaluation = input.files?.evaluation;
  const ev = obj(obj(evaluation).trace_check);
  const problems: CaseProblem[] = [];
  const sections: Section[] = [
    {
      kind: 'pairs',
      title: 'Task',
      rows: [
        ['task', text(m.task_id) ?? ''],
        ['complexity', text(m.complexity) ?? ''],
        ['perturbation mode', text(m.mode) ?? ''],
        ['tools', arr(t.tools).map(String).join(', ')],
        ['turns', num(m.turns)],
        ['tool calls', num(m.tool_calls)],
      ],
    },
  ];
  if (Array.isArray(t.trace)) {
    sections.push({
      kind: 'table',
      title: 'Perturbation: every tool call, its status and the result the tool gave',
      head: ['#', 'tool', 'arguments', 'status', 'victim', 'result'],
      rows: t.trace.map((c) => {
        const call = obj(c);
        const victim = obj(call.victim);
        return [
          num(call.index),
          text(call.name) ?? '',
          prettyArgs(call.arguments_json ?? call.args),
          text(call.status) ?? '',
          call.victim
            ? `${text(victim.node) ?? ''} (${text(victim.group) ?? ''}, call ${num(victim.call_number)})`
            : '',
          pretty(call.result),
        ];
      }),
    });
  }
  if (evaluation) {
    sections.push({
      kind: 'table',
      title: `Judge's reading (${text(ev.judge_mode) ?? 'judge'})`,
      head: ['rule', 'holds', 'detail'],
      rows: arr(ev.rules).map((r) => [text(obj(r).rule) ?? '', obj(r).ok ? 'yes' : 'no', text(obj(r).detail) ?? '']),
    });
    sections.push({
      kind: 'pairs',
      title: 'Judge: where the perturbation hit',
      rows: [
        ['hit indices', text(ev.hit_indices) ?? '—'],
        ['first hit', num(ev.first_hit)],
        ['activated victims', text(ev.activated_victims) ?? '—'],
        ['completed paths', text(ev.completed_paths) ?? '—'],
        ['winning path', text(ev.winning_path) ?? '—'],
      ],
    });
  }
  if (input.trace) sections.push(...conversationSections('Transcript', t.messages, t.model_calls, 'trace', problems));
  const scorers: ScorerView[] = [
    { name: 'pass', value: m.error ? 'error' : m.pass ? '1' : '0', reason: text(m.failure_reason) },
    { name: 'hit (perturbation reached)', value: String(m.hit ?? '—'), reason: null },
    { name: 'recovery', value: text(m.recovery) ?? '—', reason: null },
    { name: 'rc (cost ratio)', value: num(m.rc), reason: `actual ${num(m.c_act)} / oracle ${num(m.c_oracle)}` },
  ];
  return {
    tags: tagsOf([
      ['complexity', m.complexity],
      ['mode', m.mode],
    ]),
    cause: text(m.recovery),
    input: text(t.query),
    expected: null,
    predicted: text(t.final_answer),
    scorers,
    sections,
    problems,
  };
}

export const mazeCaseView: CaseView = {
  map: mazeCase,
  extraFiles(tracePath): Record<string, string> {
    const evaluation = mazeEvaluationPath(tracePath);
    return evaluation ? { evaluation } : {};
  },
};
