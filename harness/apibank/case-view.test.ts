// API-Bank's case view on traces built by the suite's own record functions (records.ts), as run.ts hands them over:
// a renamed field in what the suite writes, or in what the view reads, empties a section and fails here.
import { describe, expect, it } from 'vitest';
import type { Section, TurnView } from '../kit/case-view/index.ts';
import { stringifyJson } from '../core/json-float.ts';
import { MetaBase } from '../kit/journal.ts';
import { apibankCaseView, dialogueTurns } from './case-view.ts';
import { type ApibankMeta, ApibankMetaSchema } from './meta.ts';
import { resultSummary, traceText } from './records.ts';
import type { TaskOutcome } from './run.ts';
import { apiCallString, type ApibankTask, type DialogueRow, normalizedPyParams } from './tasks.ts';

const history: DialogueRow[] = [
  { role: 'User', text: 'Can you check my appointment with Dr. Smith\non 2023-04-12?' },
  { role: 'AI', text: 'Sure, what is your patient id?' },
  { role: 'User', text: 'It is 12345.' },
  {
    role: 'API',
    api_name: 'ToolSearcher',
    param_dict: { keywords: 'appointment' },
    result: {
      api_name: 'ToolSearcher',
      input: { keywords: 'appointment' },
      output: { name: 'QueryRegistration', desc_for_search: 'search text' },
      exception: null,
    },
  },
];
const gold = {
  role: 'API' as const,
  api_name: 'QueryRegistration',
  param_dict: { patient_name: 'John', date: '2023-04-12' },
  result: { api_name: 'QueryRegistration', input: {}, output: { status: 'booked' }, exception: null },
};
const task: ApibankTask = {
  id: 'level-2-1.jsonl::2',
  source_id: 'level-2-1.jsonl::2',
  level: '2',
  file: 'level-2-1.jsonl',
  sample_id: 2,
  api_index: 1,
  api_names: ['QueryRegistration', 'ToolSearcher'],
  chat_history: history,
  prior_api_turns: [history[3] as ApibankTask['ground_truth']],
  ground_truth: gold,
  gold_api_call: apiCallString(gold.api_name, normalizedPyParams(gold.param_dict)),
};

function outcome(predicted: string, over: Partial<TaskOutcome> = {}): TaskOutcome {
  return {
    raw: predicted,
    predicted_answer: predicted,
    verdict: {
      correct: false,
      stage: 'api_name',
      error: 'AssertionError: api name mismatch',
      predicted_api_name: 'QueryHistory',
      predicted_params: { patient_id: '12345' },
    },
    error: null,
    messages: [
      { role: 'system', content: 'You predict API calls.' },
      { role: 'user', content: 'Predict the next API call in the dialogue.' },
      { role: 'assistant', content: predicted },
    ],
    usage: { prompt_tokens: 300, completion_tokens: 12, total_tokens: 312, n_llm_calls: 1 },
    solve_s: 0.4,
    n_agents: 1,
    ...over,
  };
}

function metaOf(o: TaskOutcome, topology = 'single'): Record<string, unknown> {
  const meta: ApibankMeta = {
    suite: 'apibank',
    id: task.id,
    trial: 0,
    error: o.error,
    pass: !o.error && o.verdict.correct === true,
    reason: o.verdict.correct ? null : `${o.verdict.stage}: ${o.verdict.error}`,
    trace: 'traces/level-2-1.jsonl__2.json',
    level: task.level,
    gold_api_name: gold.api_name,
    predicted_api_name: o.verdict.predicted_api_name,
    stage: o.verdict.stage,
    correct: o.verdict.correct,
    topology,
    n_llm_calls: o.usage.n_llm_calls,
    total_tokens: o.usage.total_tokens,
  };
  // what the viewer hands a case view: a journal line that passed the kit's and the suite's schema
  MetaBase.parse(meta);
  return ApibankMetaSchema.parse(meta);
}

const mapped = (o: TaskOutcome, topology = 'single') => {
  const summary = resultSummary(task, o, { model: 'm', style: `${topology}_langgraph` });
  return apibankCaseView.map({
    suite: 'apibank',
    meta: metaOf(o, topology),
    trace: JSON.parse(traceText(task, o, summary)),
  });
};
const section = <K extends Section['kind']>(sections: Section[], title: string, kind: K) => {
  const s = sections.find((x) => x.title === title);
  expect(s?.kind, title).toBe(kind);
  return s as Extract<Section, { kind: K }>;
};

describe("API-Bank's case view", () => {
  it('a wrong call: expected beside predicted, the verdict with its stage, the dialogue and its API calls', () => {
    const c = mapped(outcome("[QueryHistory(patient_id='12345')]"));
    expect(c.problems).toEqual([]);
    expect(c).toMatchObject({
      tags: ['level=2', 'topology=single'],
      cause: 'api_name',
      expected: "[QueryRegistration(patient_name='John', date='2023-04-12')]",
      predicted: "[QueryHistory(patient_id='12345')]",
    });
    expect(c.input).toMatch(/^USER: Can you check/);
    expect(c.scorers).toEqual([
      { name: 'correct', value: '0', reason: 'api_name: AssertionError: api name mismatch' },
      { name: 'API name', value: '0', reason: 'expected QueryRegistration, predicted QueryHistory' },
    ]);
    const verdict = new Map(section(c.sections, "The reference's verdict", 'pairs').rows);
    expect([verdict.get('correct'), verdict.get('stage that decided'), verdict.get('solve s')]).toEqual([
      'no',
      'api_name',
      '0.400',
    ]);
    expect(section(c.sections, 'Expected and predicted call', 'table').rows).toEqual([
      [
        'expected',
        'QueryRegistration',
        "[QueryRegistration(patient_name='John', date='2023-04-12')]",
        '{\n  "patient_name": "John",\n  "date": "2023-04-12"\n}',
      ],
      ['predicted', 'QueryHistory', "[QueryHistory(patient_id='12345')]", '{\n  "patient_id": "12345"\n}'],
    ]);
    const dialogue = section(c.sections, 'Dialogue before the call', 'conversation').turns;
    expect(dialogue.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'API', 'API result']);
    expect(dialogue[0]!.text).toBe('Can you check my appointment with Dr. Smith\non 2023-04-12?');
    expect(dialogue[3]!.calls).toEqual([{ name: 'ToolSearcher', args: '{\n  "keywords": "appointment"\n}' }]);
    // the prompt's compacted ToolSearcher output: what the model saw
    expect(JSON.parse(dialogue[4]!.text!)).toEqual({ name: 'QueryRegistration' });
    expect(
      new Map(section(c.sections, 'What the expected call returned (the dataset)', 'pairs').rows).get('output'),
    ).toBe('{\n  "status": "booked"\n}');
    const transcript = section(c.sections, 'Transcript', 'conversation').turns;
    expect(transcript.map((t) => [t.role, t.text])).toEqual([
      ['system', 'You predict API calls.'],
      ['user', 'Predict the next API call in the dialogue.'],
      ['assistant', "[QueryHistory(patient_id='12345')]"],
    ]);
  });

  it('a correct call has no cause; an undetermined one says so; a failed request is an error of the solve stage', () => {
    const right = outcome('[QueryRegistration(...)]', {
      verdict: {
        correct: true,
        stage: 'score',
        error: null,
        predicted_api_name: 'QueryRegistration',
        predicted_params: {},
      },
    });
    const ok = mapped(right);
    expect([ok.cause, ok.scorers.map((s) => s.value)]).toEqual([null, ['1', '1']]);
    const undetermined = mapped(outcome('[x]', { verdict: { ...right.verdict, correct: null } }));
    expect([undetermined.cause, undetermined.scorers[0]!.value]).toEqual(['undetermined', 'undetermined']);
    const failed = mapped(outcome('', { error: 'ModelCallError: 503', messages: [] }));
    expect(failed.scorers[0]!.value).toBe('error');
  });

  it("a team: each agent's call, the votes, and each agent's conversation", () => {
    const run = (agent: string, round: number) => ({
      agent,
      role: 'solver',
      round,
      phase: 'solve',
      messages: [{ role: 'assistant', content: `[QueryHistory(by='${agent}')]` }],
      error: null,
    });
    const c = mapped(
      outcome('[QueryHistory()]', {
        team: {
          topology: 'independent',
          n_rounds: 1,
          winner: 'solver-0',
          buckets: { '{"name": "QueryHistory"}': 2 },
          per_agent: [
            { agent: 'solver-0', role: 'solver', round: 1, seed: 1, predicted_answer: '[QueryHistory()]', error: null },
            { agent: 'solver-1', role: 'solver', round: 1, seed: 2, predicted_answer: '', error: 'timeout' },
          ],
          runs: [run('solver-0', 1), run('solver-1', 1)],
        },
      }),
      'independent',
    );
    expect(c.problems).toEqual([]);
    expect(new Map(section(c.sections, 'Team', 'pairs').rows).get('answered by')).toBe('solver-0');
    expect(section(c.sections, "Each agent's call", 'table').rows).toEqual([
      ['solver-0', 'solver', '1', '[QueryHistory()]', ''],
      ['solver-1', 'solver', '1', '', 'timeout'],
    ]);
    const conversations = c.sections.filter(
      (s): s is Extract<Section, { kind: 'conversation' }> => s.kind === 'conversation',
    );
    expect(conversations.map((s) => s.title)).toEqual([
      'Dialogue before the call',
      'Agent solver-0 (solver, round 1, solve)',
      'Agent solver-1 (solver, round 1, solve)',
    ]);
    expect(c.sections.some((s) => s.title === 'Transcript')).toBe(false);
  });

  it('a trace of another shape costs its sections and names the field; the meta still shows the verdict', () => {
    const c = apibankCaseView.map({
      suite: 'apibank',
      meta: metaOf(outcome('[x]')),
      trace: { summary: { question: 42 } },
    });
    expect(c.problems).toEqual([{ field: 'trace.summary.question', message: expect.any(String) }]);
    expect(c.sections.map((s) => s.title)).toEqual(["The reference's verdict", 'Expected and predicted call']);
    expect(c.expected).toBe('QueryRegistration');
  });

  it('dialogue lines: a line without a speaker continues the one before; an API row that is not JSON is kept as text', () => {
    const turns: TurnView[] = dialogueTurns('USER: a\nb\nAPI_RESULT: {not json');
    expect(turns).toEqual([
      { role: 'user', text: 'a\nb', calls: [], truncated: false },
      { role: 'API', text: '{not json', calls: [], truncated: false },
    ]);
  });

  it("solve_s is written as the reference's Python float (`2.0`), in results.jsonl and in the trace", () => {
    const o = outcome('[x]', { solve_s: 2 });
    const summary = resultSummary(task, o, { model: 'm', style: 'single_langgraph' });
    expect(stringifyJson(summary)).toContain('"solve_s":2.0,');
    expect(traceText(task, o, summary)).toContain('"solve_s": 2.0,');
    expect(stringifyJson(resultSummary(task, outcome('[x]', { solve_s: 0.4 }), { model: 'm', style: 's' }))).toContain(
      '"solve_s":0.4,',
    );
  });
});
