import {
  arr,
  type CaseInput,
  type CaseProblem,
  type CaseView,
  conversationSections,
  num,
  obj,
  type ScorerView,
  type Section,
  type SuiteCase,
  tagsOf,
  text,
} from '../kit/case-view/index.ts';

/** ToolHop in `toolgauge view`: the question, gold and prediction, the hops' conversation, and for a team each agent and the vote. */
function toolhopCase(input: CaseInput): SuiteCase {
  const m = input.meta;
  const t = obj(input.trace);
  const problems: CaseProblem[] = [];
  const sections: Section[] = [
    {
      kind: 'pairs',
      title: 'Run',
      rows: [
        ['rule that credited the answer', text(m.rule) ?? '—'],
        ['turns', num(m.turns)],
        ['tool calls', num(m.tool_calls)],
        ['tool errors', num(m.tool_errors)],
        ['forced final answer', String(m.forced_final ?? '—')],
        ['tokens', num(obj(m.usage).total_tokens)],
        ['model latency ms', num(m.model_latency_ms)],
        ['retries', num(m.retries)],
        ['wall ms', num(m.wall_ms)],
      ],
    },
  ];
  const team = obj(t.team);
  if (input.trace && t.team) {
    sections.push({
      kind: 'pairs',
      title: 'Team',
      rows: [
        ['topology', text(team.topology) ?? ''],
        ['communication', text(team.comm) ?? ''],
        ['agents', num(team.agents)],
        ['rounds', num(team.rounds)],
        ['answered by', text(team.answered_by) ?? '—'],
      ],
    });
    const vote = obj(team.vote);
    if (team.vote) {
      sections.push({
        kind: 'table',
        title: `Vote (winner: ${text(vote.winnerKey) ?? 'none'})`,
        head: ['agent', 'answer', 'normalised', 'counted'],
        rows: arr(vote.ballots).map((b) => [
          text(obj(b).agent) ?? '',
          text(obj(b).answer) ?? '',
          text(obj(b).key) ?? '',
          obj(b).counted ? 'yes' : 'no',
        ]),
      });
    }
    arr(team.runs).forEach((r, i) => {
      const run = obj(r);
      const title = `Agent ${text(run.agent) ?? i} (${text(run.role) ?? ''}, round ${num(run.round)}${run.answers ? ', answers' : ''})`;
      sections.push(...conversationSections(title, run.messages, run.model_calls, `team.runs[${i}]`, problems));
    });
  } else if (input.trace) {
    sections.push(...conversationSections('Transcript', t.messages, t.model_calls, 'trace', problems));
  }
  const scorers: ScorerView[] = [
    {
      name: 'correct',
      value: m.error ? 'error' : m.correct ? '1' : '0',
      reason: m.correct ? `credited by rule: ${text(m.rule)}` : (text(m.reason) ?? null),
    },
  ];
  return {
    tags: tagsOf([
      ['hops', m.hops],
      ['domain', m.domain],
      ['answer_type', m.answer_type],
    ]),
    cause: m.forced_final ? 'forced final answer' : null,
    input: text(t.question),
    expected: text(m.gold),
    predicted: text(m.predicted),
    scorers,
    sections,
    problems,
  };
}

export const toolhopCaseView: CaseView = { map: toolhopCase };
