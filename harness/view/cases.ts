import { z } from 'zod';
import { firstZodIssue } from '../core/errors.ts';
import { MessageJson, ModelCallJson, modelCallsTable, prettyArgs, turnsOf } from './conversation.ts';
import type { CaseDetail, CaseRow, CaseStatus, ScorerView, Section } from './model.ts';

/**
 * One case of one run, mapped to the viewer's shape: the ledger row and the case view. Each suite stores its own
 * meta (the journal line) and trace file; the mappings below read them (pure functions, no files), and a trace that
 * does not have the expected shape costs only its sections (a problem names the field), never the case.
 */

export interface CaseInput {
  suite: string;
  /** The journal line, already checked against the kit's and the suite's meta schema. */
  meta: Record<string, unknown>;
  /** The trace file's JSON (meta.trace), when there is one. */
  trace: unknown;
  /** Maze: the judge's evaluation file. */
  evaluation?: unknown;
  /** Record file → this case's line in it. */
  records?: Record<string, unknown>;
}

export interface MappedCase {
  row: Omit<CaseRow, 'detail'>;
  detail: CaseDetail;
  /** Parts of the trace that could not be read: field and message. */
  problems: Array<{ field: string; message: string }>;
}

type Obj = Record<string, unknown>;
const obj = (x: unknown): Obj => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Obj) : {});
const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
/** A value as text: strings as they are, everything else as JSON; null and undefined as null. */
export function text(x: unknown): string | null {
  if (x === null || x === undefined) return null;
  return typeof x === 'string' ? x : JSON.stringify(x);
}
const num = (x: unknown): string =>
  typeof x === 'number'
    ? Number.isInteger(x)
      ? String(x)
      : x.toFixed(3)
    : x === null || x === undefined
      ? '—'
      : String(x);
const pretty = (x: unknown): string => (typeof x === 'string' ? x : JSON.stringify(x ?? null, null, 2));

export function statusOf(meta: Obj): CaseStatus {
  return meta.error ? 'error' : meta.pass === true ? 'pass' : 'fail';
}

/** Calls as `name({...})`, one per line: how a probe or BFCL prediction reads in the ledger. */
export function callsText(calls: unknown): string {
  return arr(calls)
    .map((c) => `${text(obj(c).name) ?? '?'}(${JSON.stringify(obj(c).arguments ?? {})})`)
    .join('\n');
}

/** Parse `value` with `schema`; on failure note the field (under `prefix`) and give null. */
function read<T>(schema: z.ZodType<T>, value: unknown, prefix: string, problems: MappedCase['problems']): T | null {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const { field, message } = firstZodIssue(r.error);
  problems.push({ field: field ? `${prefix}.${field}` : prefix, message });
  return null;
}

const Messages = z.array(MessageJson);
const ModelCalls = z.array(ModelCallJson);

/** The conversation of one agent: messages, and the requests that produced its assistant turns. */
function conversation(
  title: string,
  messages: unknown,
  modelCalls: unknown,
  prefix: string,
  problems: MappedCase['problems'],
): Section[] {
  if (messages === undefined) return [];
  const ms = read(Messages, messages, `${prefix}.messages`, problems);
  const calls = modelCalls === undefined ? [] : (read(ModelCalls, modelCalls, `${prefix}.model_calls`, problems) ?? []);
  if (!ms) return [];
  const out: Section[] = [{ kind: 'conversation', title, turns: turnsOf(ms, calls) }];
  if (calls.length) out.push(modelCallsTable(calls, `${title}: model requests`));
  return out;
}

function base(input: CaseInput): Omit<CaseRow, 'detail' | 'tags' | 'cause' | 'predicted'> {
  const m = input.meta;
  return {
    key: `${String(m.id)}#${Number(m.trial ?? 0)}`,
    id: String(m.id),
    trial: Number(m.trial ?? 0),
    order: typeof m.order === 'number' ? m.order : Number.MAX_SAFE_INTEGER,
    status: statusOf(m),
    reason: text(m.error) ?? text(m.reason),
  };
}

function tagsOf(pairs: Array<[string, unknown]>): string[] {
  return pairs.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => `${k}=${text(v)}`);
}

function finish(
  input: CaseInput,
  row: Omit<CaseRow, 'detail'>,
  detail: Omit<CaseDetail, 'key'>,
  problems: MappedCase['problems'],
): MappedCase {
  const sections = [...detail.sections];
  if (input.meta.error) sections.unshift({ kind: 'text', title: 'Harness error', text: String(input.meta.error) });
  for (const [file, line] of Object.entries(input.records ?? {}))
    sections.push({ kind: 'json', title: `${file} line`, json: pretty(line) });
  sections.push({ kind: 'json', title: 'Journal line (instances.jsonl)', json: pretty(input.meta) });
  return { row, detail: { key: row.key, ...detail, sections }, problems };
}

/** ToolHop: the question, gold and prediction, the hops' conversation, and for a team each agent and the vote. */
function toolhopCase(input: CaseInput): MappedCase {
  const m = input.meta;
  const t = obj(input.trace);
  const problems: MappedCase['problems'] = [];
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
      sections.push(...conversation(title, run.messages, run.model_calls, `team.runs[${i}]`, problems));
    });
  } else if (input.trace) {
    sections.push(...conversation('Transcript', t.messages, t.model_calls, 'trace', problems));
  }
  const row = {
    ...base(input),
    tags: tagsOf([
      ['hops', m.hops],
      ['domain', m.domain],
      ['answer_type', m.answer_type],
    ]),
    cause: m.forced_final ? 'forced final answer' : null,
    predicted: text(m.predicted),
  };
  const scorers: ScorerView[] = [
    {
      name: 'correct',
      value: m.error ? 'error' : m.correct ? '1' : '0',
      reason: m.correct ? `credited by rule: ${text(m.rule)}` : (text(m.reason) ?? null),
    },
  ];
  return finish(
    input,
    row,
    { input: text(t.question), expected: text(m.gold), predicted: text(m.predicted), scorers, sections },
    problems,
  );
}

/** Maze: the task, the perturbation the tools applied, the judge's reading of the trace, the conversation. */
function mazeCase(input: CaseInput): MappedCase {
  const m = input.meta;
  const t = obj(input.trace);
  const ev = obj(obj(input.evaluation).trace_check);
  const problems: MappedCase['problems'] = [];
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
  if (input.evaluation) {
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
  if (input.trace) sections.push(...conversation('Transcript', t.messages, t.model_calls, 'trace', problems));
  const scorers: ScorerView[] = [
    { name: 'pass', value: m.error ? 'error' : m.pass ? '1' : '0', reason: text(m.failure_reason) },
    { name: 'hit (perturbation reached)', value: String(m.hit ?? '—'), reason: null },
    { name: 'recovery', value: text(m.recovery) ?? '—', reason: null },
    { name: 'rc (cost ratio)', value: num(m.rc), reason: `actual ${num(m.c_act)} / oracle ${num(m.c_oracle)}` },
  ];
  const row = {
    ...base(input),
    tags: tagsOf([
      ['complexity', m.complexity],
      ['mode', m.mode],
    ]),
    cause: text(m.recovery),
    predicted: text(t.final_answer),
  };
  return finish(
    input,
    row,
    { input: text(t.query), expected: null, predicted: text(t.final_answer), scorers, sections },
    problems,
  );
}

const TIERS = ['strict', 'lenient'] as const;
const LAYERS = ['parse_ok', 'schema_valid', 'tool_correct', 'args_correct', 'abstained', 'false_trigger'] as const;

function layerScorers(layers: Obj): ScorerView[] {
  return TIERS.flatMap((tier) => {
    const l = obj(layers[tier]);
    if (!layers[tier]) return [];
    const why = [...arr(l.problems), ...arr(l.mismatches)].map((p) => text(p)).join('; ');
    return LAYERS.filter((k) => l[k] !== undefined).map((k) => ({
      name: `${tier} ${k}`,
      value: num(l[k]),
      reason: why || null,
    }));
  });
}

function attributionTable(cause: Obj): Section {
  return {
    kind: 'table',
    title: 'Attribution per tier, with its evidence',
    head: ['tier', 'cause', 'kind', 'evidence'],
    rows: TIERS.filter((t) => cause[t]).map((t) => [
      t,
      text(obj(cause[t]).cause) ?? '—',
      text(obj(cause[t]).kind) ?? '',
      text(obj(cause[t]).evidence) ?? '',
    ]),
  };
}

/** Probe: the raw output, its parse per tier, the layers scored, and the attribution with its evidence. */
function probeCase(input: CaseInput): MappedCase {
  const m = input.meta;
  const out = obj(m.output);
  const parse = obj(m.parse);
  const problems: MappedCase['problems'] = [];
  const raw = [
    text(out.content) ? `content:\n${text(out.content)}` : 'content: (none)',
    out.tool_calls ? `tool_calls:\n${pretty(out.tool_calls)}` : null,
    out.finish_reason ? `finish_reason: ${text(out.finish_reason)}` : null,
  ]
    .filter(Boolean)
    .join('\n\n');
  const sections: Section[] = [
    { kind: 'text', title: 'Raw output', text: raw },
    {
      kind: 'table',
      title: 'Parse per tier',
      head: ['tier', 'attempted', 'truncated', 'parsed by', 'format', 'calls', 'notes'],
      rows: TIERS.filter((t) => parse[t]).map((t) => {
        const p = obj(parse[t]);
        return [
          t,
          String(p.attempted ?? ''),
          String(p.truncated ?? ''),
          text(p.tier) ?? '',
          text(p.format) ?? '',
          callsText(p.calls) || '(no call)',
          arr(p.notes)
            .map((n) => text(n))
            .join('; '),
        ];
      }),
    },
    attributionTable(obj(m.cause)),
    {
      kind: 'pairs',
      title: 'Request',
      rows: [
        ['model', text(m.model) ?? ''],
        ['transport', text(m.transport) ?? ''],
        ['arm', text(m.arm) ?? ''],
        ['latency ms', num(m.latency_ms)],
        ['attempts', num(m.attempts)],
        ['tokens', `${num(obj(m.usage).prompt_tokens)} + ${num(obj(m.usage).completion_tokens)}`],
        ['template sha256', text(m.template_sha256) ?? '—'],
      ],
    },
  ];
  if (arr(m.template_findings).length)
    sections.push({ kind: 'json', title: 'Template findings', json: pretty(m.template_findings) });
  if (m.counterfactual) sections.push({ kind: 'json', title: 'Counterfactual', json: pretty(m.counterfactual) });
  const strict = obj(obj(m.cause).strict);
  const cause = text(strict.cause) ?? (strict.kind && strict.kind !== 'pass' ? text(strict.kind) : null);
  const row = {
    ...base(input),
    tags: tagsOf([
      ['cat', m.cat],
      ['family', m.family],
      ['split', m.split],
    ]),
    cause,
    predicted: callsText(obj(parse.strict).calls) || (text(out.content) ?? ''),
  };
  const expected = m.expects_call === false ? '(no call expected)' : callsText(m.expected);
  return finish(
    input,
    row,
    { input: null, expected, predicted: row.predicted, scorers: layerScorers(obj(m.scores)), sections },
    problems,
  );
}

/** BFCL: BFCL's own verdict beside toolgauge's layers and attribution, and the conversation. */
function bfclCase(input: CaseInput): MappedCase {
  const m = input.meta;
  const t = obj(input.trace);
  const tg = obj(t.toolgauge);
  const problems: MappedCase['problems'] = [];
  const sections: Section[] = [
    {
      kind: 'pairs',
      title: "BFCL's verdict",
      rows: [
        ['valid', String(m.valid ?? '—')],
        ['error type', text(m.error_type) || '—'],
        ['error', text(m.bfcl_error) ?? '—'],
        ['crash', text(m.crash) ?? '—'],
        ['undecided', text(m.undecided) ?? '—'],
        ['deviation from toolgauge', text(m.deviation) ?? '—'],
      ],
    },
  ];
  if (tg.attribution) sections.push(attributionTable(obj(tg.attribution)));
  if (tg.calls)
    sections.push({
      kind: 'table',
      title: 'Calls parsed per tier',
      head: ['tier', 'calls'],
      rows: TIERS.filter((x) => obj(tg.calls)[x]).map((x) => [x, callsText(obj(tg.calls)[x]) || '(no call)']),
    });
  if (input.trace) sections.push(...conversation('Transcript', t.messages, t.model_calls, 'trace', problems));
  const msgs = arr(t.messages);
  const firstUser = msgs.find((x) => obj(x).role === 'user');
  const verdict = obj(m.toolgauge);
  const scorers: ScorerView[] = [
    {
      name: 'BFCL valid',
      value: m.error ? 'error' : m.valid ? '1' : '0',
      reason: [text(m.error_type), text(m.bfcl_error)].filter(Boolean).join(': ') || null,
    },
    { name: "toolgauge's verdict", value: verdict.pass ? '1' : '0', reason: text(verdict.evidence) },
    ...layerScorers(obj(m.layers)),
  ];
  const predicted = t.result === undefined ? null : JSON.stringify(t.result);
  const row = {
    ...base(input),
    tags: tagsOf([['category', m.category]]),
    cause: text(verdict.cause) ?? (verdict.kind && verdict.kind !== 'pass' ? text(verdict.kind) : null),
    predicted,
  };
  return finish(
    input,
    row,
    { input: firstUser ? text(obj(firstUser).content) : null, expected: null, predicted, scorers, sections },
    problems,
  );
}

/** `scorer: reason; scorer: reason`, as describeEval joins the reasons of the scores under 1. */
export function reasonsFrom(reason: string | null, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!reason) return out;
  const starts = names
    .map((n) => ({ n, at: reason.indexOf(`${n}: `) }))
    .filter((x) => x.at === 0 || (x.at > 0 && reason.slice(x.at - 2, x.at) === '; '))
    .sort((a, b) => a.at - b.at);
  starts.forEach((s, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.at - 2 : reason.length;
    out[s.n] = reason.slice(s.at + s.n.length + 2, end);
  });
  return out;
}

/** A describeEval eval (or any scored suite): input, expected, the answer, each scorer, the conversation. */
function scoredCase(input: CaseInput): MappedCase {
  const m = input.meta;
  const t = obj(input.trace);
  const output = obj(t.output);
  const problems: MappedCase['problems'] = [];
  const scores = obj(m.scores);
  const stored = obj(t.reasons);
  const parsed = reasonsFrom(text(m.reason), Object.keys(scores));
  const scorers: ScorerView[] = Object.entries(scores).map(([name, v]) => ({
    name,
    value: num(v),
    reason: text(stored[name]) ?? parsed[name] ?? null,
  }));
  const sections: Section[] = [];
  if (input.trace) {
    sections.push(...conversation('Transcript', output.messages, output.modelCalls, 'trace.output', problems));
    const toolCalls = arr(output.toolCalls);
    if (toolCalls.length) {
      sections.push({
        kind: 'table',
        title: 'Tool calls',
        head: ['tool', 'arguments', 'result', 'error'],
        rows: toolCalls.map((c) => [
          text(obj(c).name) ?? '',
          prettyArgs(obj(c).argumentsJson ?? obj(c).arguments),
          text(obj(c).result) ?? '',
          text(obj(c).error) ?? '',
        ]),
      });
    }
    sections.push({
      kind: 'pairs',
      title: 'Run',
      rows: [
        ['turns', num(output.turns)],
        ['tokens', `${num(obj(output.usage).prompt_tokens)} + ${num(obj(output.usage).completion_tokens)}`],
      ],
    });
  } else if (!input.meta.error) {
    sections.push({ kind: 'text', title: 'Trace', text: 'no trace file for this case' });
  }
  const tags = Object.entries(obj(m.tags)).map(([k, v]) => `${k}=${text(v)}`);
  const row = { ...base(input), tags, cause: null, predicted: text(output.answer) };
  return finish(
    input,
    row,
    {
      input: text(t.input),
      expected: t.expected === undefined ? null : pretty(t.expected),
      predicted: text(output.answer),
      scorers,
      sections,
    },
    problems,
  );
}

/** A suite the viewer has no mapping for: the journal line and the trace, as JSON. */
function genericCase(input: CaseInput): MappedCase {
  const sections: Section[] =
    input.trace === undefined || input.trace === null
      ? []
      : [{ kind: 'json', title: 'Trace', json: pretty(input.trace) }];
  return finish(
    input,
    { ...base(input), tags: [], cause: null, predicted: null },
    { input: null, expected: null, predicted: null, scorers: [], sections },
    [],
  );
}

export function mapCase(input: CaseInput): MappedCase {
  switch (input.suite) {
    case 'toolhop':
      return toolhopCase(input);
    case 'maze':
      return mazeCase(input);
    case 'probe':
      return probeCase(input);
    case 'bfcl':
      return bfclCase(input);
    default:
      return input.meta.scores && typeof input.meta.scores === 'object' ? scoredCase(input) : genericCase(input);
  }
}
