import { z } from 'zod';
import {
  type CaseInput,
  type CaseProblem,
  type CaseView,
  conversationSections,
  num,
  obj,
  pretty,
  prettyArgs,
  readField,
  type ScorerView,
  type Section,
  type SuiteCase,
  tagsOf,
  text,
  type TurnView,
} from '../kit/case-view/index.ts';

/**
 * API-Bank in `toolgauge view`: the dialogue before the call (with the API calls made in it and their results), the
 * expected call beside the predicted one, the reference's verdict with the stage that decided it, and the model's
 * conversation (each agent's, for a team). It reads the trace records.ts writes (`traceText`).
 */

const Summary = z
  .object({
    question: z.string(),
    gold_api_call: z.string(),
    predicted_answer: z.string().nullable(),
    predicted_params: z.record(z.string(), z.unknown()).nullable(),
    solve_s: z.number(),
    style: z.string(),
  })
  .passthrough();

const GroundTruth = z
  .object({
    api_name: z.string(),
    param_dict: z.record(z.string(), z.unknown()),
    result: z.object({ output: z.unknown().optional(), exception: z.unknown().optional() }).passthrough().optional(),
  })
  .passthrough();

const TeamRun = z
  .object({
    agent: z.string(),
    role: z.string(),
    round: z.number(),
    phase: z.string().nullable().optional(),
    messages: z.unknown(),
    error: z.string().nullable().optional(),
  })
  .passthrough();

const PerAgent = z
  .object({
    agent: z.string(),
    role: z.string(),
    round: z.number(),
    predicted_answer: z.string(),
    error: z.string().nullable().optional(),
  })
  .passthrough();

const Team = z
  .object({
    topology: z.string(),
    n_rounds: z.number(),
    winner: z.string().nullable(),
    buckets: z.record(z.string(), z.number()).nullable(),
    per_agent: z.array(PerAgent),
    runs: z.array(TeamRun),
  })
  .passthrough();

/** The trace file: the results.jsonl line, the solver's messages, the gold API row and, for a team, its runs. */
const ApibankTrace = z
  .object({ summary: Summary, messages: z.unknown(), ground_truth: GroundTruth, team: Team.optional() })
  .passthrough();

const SPEAKERS = { USER: 'user', ASSISTANT: 'assistant', API_RESULT: 'API' } as const;
const SPEAKER_LINE = /^(USER|ASSISTANT|API_RESULT): /;

/** An API row of the dialogue (`API_RESULT: {...}`): the call it made, then what it returned. */
function apiTurns(json: string): TurnView[] {
  let row: Record<string, unknown>;
  try {
    row = obj(JSON.parse(json));
  } catch {
    return [{ role: 'API', text: json, calls: [], truncated: false }];
  }
  const result = row.exception ? `exception: ${pretty(row.exception)}` : pretty(row.output);
  return [
    {
      role: 'API',
      text: null,
      calls: [{ name: text(row.api_name) ?? '?', args: prettyArgs(row.input ?? {}) }],
      truncated: false,
    },
    { role: 'API result', text: result, calls: [], truncated: false },
  ];
}

/**
 * The dialogue as the prompt shows it (`formatChatHistory`: `USER: …`, `ASSISTANT: …`, `API_RESULT: {json}`, a line
 * without a speaker continuing the one before) as turns: each API row a call and its result.
 */
export function dialogueTurns(question: string): TurnView[] {
  const rows: Array<{ speaker: keyof typeof SPEAKERS; text: string }> = [];
  for (const line of question.split('\n')) {
    const m = SPEAKER_LINE.exec(line);
    if (m) rows.push({ speaker: m[1] as keyof typeof SPEAKERS, text: line.slice(m[0].length) });
    else if (rows.length) rows[rows.length - 1]!.text += `\n${line}`;
  }
  return rows.flatMap((r) =>
    r.speaker === 'API_RESULT'
      ? apiTurns(r.text)
      : [{ role: SPEAKERS[r.speaker], text: r.text, calls: [], truncated: false }],
  );
}

const verdictOf = (m: Record<string, unknown>): string =>
  m.error ? 'error' : m.correct === null ? 'undetermined' : m.correct ? '1' : '0';

function apibankCase(input: CaseInput): SuiteCase {
  const m = input.meta;
  const problems: CaseProblem[] = [];
  const t =
    input.trace === undefined || input.trace === null ? null : readField(ApibankTrace, input.trace, 'trace', problems);
  const s = t?.summary;
  const gold = t?.ground_truth;
  const sections: Section[] = [
    {
      kind: 'pairs',
      title: "The reference's verdict",
      rows: [
        ['correct', verdictOf(m) === '1' ? 'yes' : verdictOf(m) === '0' ? 'no' : verdictOf(m)],
        ['stage that decided', text(m.stage) ?? '—'],
        ['reason', text(m.reason) ?? '—'],
        ['level', text(m.level) ?? ''],
        ['topology', text(m.topology) ?? ''],
        ['model calls', num(m.n_llm_calls)],
        ['tokens', num(m.total_tokens)],
        ['solve s', num(s?.solve_s)],
      ],
    },
    {
      kind: 'table',
      title: 'Expected and predicted call',
      head: ['', 'API', 'call', 'parameters'],
      rows: [
        ['expected', text(m.gold_api_name) ?? '', s?.gold_api_call ?? '', gold ? pretty(gold.param_dict) : ''],
        [
          'predicted',
          text(m.predicted_api_name) ?? '(none)',
          s?.predicted_answer || '(no call extracted)',
          s?.predicted_params ? pretty(s.predicted_params) : '',
        ],
      ],
    },
  ];
  if (s) sections.push({ kind: 'conversation', title: 'Dialogue before the call', turns: dialogueTurns(s.question) });
  if (gold?.result)
    sections.push({
      kind: 'pairs',
      title: 'What the expected call returned (the dataset)',
      rows: [
        ['output', pretty(gold.result.output ?? null)],
        ['exception', text(gold.result.exception) ?? '—'],
      ],
    });
  if (t?.team) {
    const team = t.team;
    sections.push({
      kind: 'pairs',
      title: 'Team',
      rows: [
        ['topology', team.topology],
        ['rounds', num(team.n_rounds)],
        ['answered by', team.winner ?? '—'],
        ['votes per answer', team.buckets ? pretty(team.buckets) : '—'],
      ],
    });
    sections.push({
      kind: 'table',
      title: "Each agent's call",
      head: ['agent', 'role', 'round', 'call', 'error'],
      rows: team.per_agent.map((a) => [a.agent, a.role, num(a.round), a.predicted_answer, a.error ?? '']),
    });
    team.runs.forEach((r, i) => {
      const title = `Agent ${r.agent} (${r.role}, round ${r.round}${r.phase ? `, ${r.phase}` : ''})`;
      sections.push(...conversationSections(title, r.messages, undefined, `trace.team.runs[${i}]`, problems));
    });
  } else if (t) {
    sections.push(...conversationSections('Transcript', t.messages, undefined, 'trace', problems));
  }
  const scorers: ScorerView[] = [
    { name: 'correct', value: verdictOf(m), reason: text(m.reason) },
    {
      name: 'API name',
      value: m.error ? 'error' : m.predicted_api_name === m.gold_api_name ? '1' : '0',
      reason: `expected ${text(m.gold_api_name)}, predicted ${text(m.predicted_api_name) ?? '(none)'}`,
    },
  ];
  return {
    tags: tagsOf([
      ['level', m.level],
      ['topology', m.topology],
    ]),
    cause: m.pass ? null : m.correct === null && !m.error ? 'undetermined' : text(m.stage),
    input: s?.question ?? null,
    expected: s?.gold_api_call ?? text(m.gold_api_name),
    predicted: s ? s.predicted_answer : text(m.predicted_api_name),
    scorers,
    sections,
    problems,
  };
}

export const apibankCaseView: CaseView = { map: apibankCase };
