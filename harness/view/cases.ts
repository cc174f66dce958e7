import {
  arr,
  type CaseInput,
  type CaseProblem,
  type CaseView,
  conversationSections,
  expectedCallsSection,
  num,
  obj,
  pretty,
  prettyArgs,
  type ScorerView,
  type Section,
  type SuiteCase,
  text,
} from '../kit/case-view/index.ts';
import { suiteNamed } from '../kit/registry.ts';
import { judgeSections } from './judge-sections.ts';
import type { CaseDetail, CaseRow, CaseStatus } from './model.ts';

/**
 * One case of one run, mapped to the viewer's shape: the ledger row and the case view. Each suite declares how its
 * cases show (its definition's `caseView`, harness/<suite>/case-view.ts); the viewer adds what every case shows and
 * gives a suite without one the scored view (a describeEval eval's meta has scores) or the generic one. Pure: no
 * files; a trace that does not have the expected shape costs only its sections (a problem names the field).
 */

export type { CaseInput } from '../kit/case-view/index.ts';

export interface MappedCase {
  row: Omit<CaseRow, 'detail'>;
  detail: CaseDetail;
  /** Parts of the trace that could not be read: field and message. */
  problems: CaseProblem[];
}

type Obj = Record<string, unknown>;

export function statusOf(meta: Obj): CaseStatus {
  return meta.error ? 'error' : meta.pass === true ? 'pass' : 'fail';
}

/** The ledger row with what every case shows (key, status, reason) and the suite's tags, cause and answer. */
function rowOf(input: CaseInput, c: Pick<SuiteCase, 'tags' | 'cause' | 'predicted'>): Omit<CaseRow, 'detail'> {
  const m = input.meta;
  return {
    key: `${String(m.id)}#${Number(m.trial ?? 0)}`,
    id: String(m.id),
    trial: Number(m.trial ?? 0),
    order: typeof m.order === 'number' ? m.order : Number.MAX_SAFE_INTEGER,
    status: statusOf(m),
    reason: text(m.error) ?? text(m.reason),
    tags: c.tags,
    cause: c.cause,
    predicted: c.predicted,
  };
}

/** The suite's case with the sections every case has: the harness error first, the record lines and the journal line last. */
function finish(input: CaseInput, c: SuiteCase): MappedCase {
  const row = rowOf(input, c);
  const sections = [...c.sections];
  if (input.meta.error) sections.unshift({ kind: 'text', title: 'Harness error', text: String(input.meta.error) });
  for (const [file, line] of Object.entries(input.records ?? {}))
    sections.push({ kind: 'json', title: `${file} line`, json: pretty(line) });
  sections.push({ kind: 'json', title: 'Journal line (instances.jsonl)', json: pretty(input.meta) });
  return {
    row,
    detail: {
      key: row.key,
      input: c.input,
      expected: c.expected,
      predicted: c.predicted,
      scorers: c.scorers,
      sections,
    },
    problems: c.problems,
  };
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
function scoredCase(input: CaseInput): SuiteCase {
  const m = input.meta;
  const t = obj(input.trace);
  const output = obj(t.output);
  const problems: CaseProblem[] = [];
  const scores = obj(m.scores);
  const stored = obj(t.reasons);
  const parsed = reasonsFrom(text(m.reason), Object.keys(scores));
  const scorers: ScorerView[] = Object.entries(scores).map(([name, v]) => ({
    name,
    value: v === null ? 'unscored' : num(v),
    reason: text(stored[name]) ?? parsed[name] ?? null,
  }));
  const sections: Section[] = [];
  if (input.trace) {
    sections.push(...conversationSections('Transcript', output.messages, output.modelCalls, 'trace.output', problems));
    const toolCalls = arr(output.toolCalls);
    const beside = expectedCallsSection(t.expectedTools, output.toolCalls, 'trace', problems);
    if (beside) sections.push(beside);
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
    const notes = toolNotesSection(t.toolNotes, problems);
    if (notes) sections.push(notes);
    sections.push(...judgeSections(t.judges));
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
  return {
    tags: Object.entries(obj(m.tags)).map(([k, v]) => `${k}=${text(v)}`),
    cause: null,
    input: text(t.input),
    expected: t.expected === undefined ? null : pretty(t.expected),
    predicted: text(output.answer),
    scorers,
    sections,
    problems,
  };
}

/**
 * What a tool source changed in what its server offered (`trace.toolNotes`: a schema replaced, a tool left out): one
 * line each, so a case whose model never saw a tool says why. A field that is not a list of strings is a problem.
 */
function toolNotesSection(notes: unknown, problems: CaseProblem[]): Section | undefined {
  if (notes === undefined) return undefined;
  if (!Array.isArray(notes) || notes.some((n) => typeof n !== 'string')) {
    problems.push({ field: 'trace.toolNotes', message: 'expected a list of strings' });
    return undefined;
  }
  return notes.length ? { kind: 'text', title: 'Tool notes', text: notes.join('\n') } : undefined;
}

/** A suite without a case view: the journal line and the trace, as JSON. */
function genericCase(input: CaseInput): SuiteCase {
  const sections: Section[] =
    input.trace === undefined || input.trace === null
      ? []
      : [{ kind: 'json', title: 'Trace', json: pretty(input.trace) }];
  return { tags: [], cause: null, input: null, expected: null, predicted: null, scorers: [], sections, problems: [] };
}

/**
 * One case in the viewer's shape, by the case view its suite declares (from the registry unless given); a suite
 * without one gets the scored view when its meta has scores, else the generic one.
 */
export function mapCase(input: CaseInput, view: CaseView | undefined = suiteNamed(input.suite)?.caseView): MappedCase {
  if (view) return finish(input, view.map(input));
  return finish(
    input,
    input.meta.scores && typeof input.meta.scores === 'object' ? scoredCase(input) : genericCase(input),
  );
}
