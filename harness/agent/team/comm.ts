import { z } from 'zod';

/**
 * Inter-agent communication formats: how an agent writes what it hands to another agent (a peer, the manager, the
 * next stage, the vote). The format only shapes hand-offs; the suite's own answer format (ToolHop's `<answer>`)
 * comes after the report and is scored as usual. Nothing is re-prompted: a report that does not parse is passed
 * on as raw text and counted, so the parse rate measures what the model does by itself.
 */
export const COMM_FORMATS = ['freeform', 'semi_structured', 'structured'] as const;
export type CommFormat = (typeof COMM_FORMATS)[number];

export const STATUSES = ['not_started', 'in_progress', 'completed', 'blocked'] as const;
export const CONFIDENCES = ['low', 'medium', 'high'] as const;

const nonBlank = z.string().refine((s) => s.trim().length > 0, 'must not be empty');

/** The report every non-freeform format carries. */
export const Report = z.object({
  status: z.enum(STATUSES),
  summary: nonBlank,
  evidence: nonBlank,
  confidence: z.enum(CONFIDENCES),
  next: nonBlank,
  answer_candidate: z.string().optional(),
});
export type Report = z.infer<typeof Report>;

/** The first line of every format contract; the simulator reads the requested format from it. */
export const COMM_MARKER = 'INTER-AGENT REPORT FORMAT:';

const SEMI_TAGS = [
  ['STATUS', 'status'],
  ['SUMMARY', 'summary'],
  ['EVIDENCE', 'evidence'],
  ['CONFIDENCE', 'confidence'],
  ['NEXT', 'next'],
] as const;
const ANSWER_TAG = 'ANSWER_CANDIDATE';

/** Prompt text asking for the format (appended to every role's system prompt); empty for freeform. */
export function commContract(fmt: CommFormat): string {
  if (fmt === 'freeform') return '';
  const common =
    'Everything you pass on to another agent (a peer, the manager, the next stage of the pipeline, or the vote) is ' +
    'one report, written as follows.';
  const tail =
    'If your instructions ask you for the final answer, write it after the report, in the format they require.';
  if (fmt === 'semi_structured') {
    return [
      `${COMM_MARKER} semi_structured`,
      `${common} Put each tag alone on its own line, in this order, with its content below it:`,
      '[STATUS]',
      `one of ${STATUSES.join(', ')}`,
      '[SUMMARY]',
      'your result or decision in one or two sentences',
      '[EVIDENCE]',
      'the tool calls, observations and checks that support it',
      '[CONFIDENCE]',
      `one of ${CONFIDENCES.join(', ')}, optionally followed by a short reason`,
      '[NEXT]',
      'what the receiver should do with this report',
      `You may add [${ANSWER_TAG}] with the value you would answer.`,
      tail,
    ].join('\n');
  }
  return [
    `${COMM_MARKER} structured`,
    `${common} It is one JSON object between <report> and </report>, without code fences:`,
    '<report>',
    '{"status": "completed", "summary": "...", "evidence": "...", "confidence": "medium", "next": "...", "answer_candidate": "..."}',
    '</report>',
    `status is one of ${STATUSES.join(', ')}; confidence is one of ${CONFIDENCES.join(', ')}; answer_candidate is optional; ` +
      'every other field is a non-empty string.',
    tail,
  ].join('\n');
}

/** The format a system prompt asks for (freeform when it names none). */
export function requestedCommFormat(system: string): CommFormat {
  const m = new RegExp(`${COMM_MARKER}\\s*(\\w+)`).exec(system);
  const name = m?.[1];
  return name === 'semi_structured' || name === 'structured' ? name : 'freeform';
}

export interface ParsedReport {
  ok: boolean;
  errors: string[];
  /** The validated report (semi_structured, structured). */
  report?: Report;
}

export function parseReport(text: string, fmt: CommFormat): ParsedReport {
  // Free text has no form to miss (as in the reference, a freeform hand-off always counts as parsed).
  if (fmt === 'freeform') return { ok: true, errors: [] };
  return fmt === 'semi_structured' ? parseSemi(text) : parseStructured(text);
}

export function renderReport(r: Report, fmt: Exclude<CommFormat, 'freeform'>): string {
  if (fmt === 'structured') return `<report>\n${JSON.stringify(r)}\n</report>`;
  const parts = SEMI_TAGS.map(([tag, key]) => `[${tag}]\n${escapeSemi(r[key])}`);
  if (r.answer_candidate !== undefined) parts.push(`[${ANSWER_TAG}]\n${escapeSemi(r.answer_candidate)}`);
  return parts.join('\n\n');
}

// --- semi_structured ---------------------------------------------------------------------------------------------

const TAG_LINE = /^\[([A-Z_]+)\]\s*$/;
/** Lines that would read as a tag (or as an escaped line) get a leading backslash, which parsing removes. */
const NEEDS_ESCAPE = /^(\\|\s*\[[A-Z_]+\]\s*$)/;

function escapeSemi(value: string): string {
  return value
    .split('\n')
    .map((l) => (NEEDS_ESCAPE.test(l) ? `\\${l}` : l))
    .join('\n');
}

function unescapeSemi(line: string): string {
  return line.startsWith('\\') ? line.slice(1) : line;
}

function firstToken(s: string): string {
  return (s.trim().split(/\s+/)[0] ?? '').toLowerCase().replace(/^[.,;:]+|[.,;:]+$/g, '');
}

function parseSemi(text: string): ParsedReport {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.split('\n')) {
    const tag = TAG_LINE.exec(line)?.[1];
    if (tag) {
      current = [];
      if (!sections.has(tag)) sections.set(tag, current);
      continue;
    }
    current?.push(unescapeSemi(line));
  }
  const get = (tag: string) => sections.get(tag)?.join('\n').trim();
  const errors: string[] = [];
  for (const [tag] of SEMI_TAGS) if (!get(tag)) errors.push(`missing [${tag}]`);
  const status = firstToken(get('STATUS') ?? '');
  const confidence = firstToken(get('CONFIDENCE') ?? '');
  if (status && !(STATUSES as readonly string[]).includes(status)) errors.push(`invalid status '${status}'`);
  if (confidence && !(CONFIDENCES as readonly string[]).includes(confidence))
    errors.push(`invalid confidence '${confidence}'`);
  if (errors.length) return { ok: false, errors };
  const candidate = sections.get(ANSWER_TAG)?.join('\n').trim();
  const report: Report = {
    status: status as Report['status'],
    summary: get('SUMMARY')!,
    evidence: get('EVIDENCE')!,
    confidence: confidence as Report['confidence'],
    next: get('NEXT')!,
    ...(candidate !== undefined ? { answer_candidate: candidate } : {}),
  };
  return { ok: true, errors: [], report };
}

// --- structured --------------------------------------------------------------------------------------------------

function parseStructured(text: string): ParsedReport {
  const candidate = jsonCandidate(text);
  if (candidate === undefined) return { ok: false, errors: ['missing <report> JSON object'] };
  let value: unknown;
  try {
    value = JSON.parse(candidate);
  } catch (err) {
    return { ok: false, errors: [`malformed JSON: ${(err as Error).message}`] };
  }
  const r = Report.safeParse(value);
  if (!r.success)
    return { ok: false, errors: r.error.issues.map((i) => `${i.path.join('.') || '(report)'}: ${i.message}`) };
  return { ok: true, errors: [], report: r.data };
}

/** The JSON object after `<report>`; else the one in a ```json fence; else a reply that is only an object. */
function jsonCandidate(text: string): string | undefined {
  const tag = text.indexOf('<report>');
  if (tag >= 0) {
    const start = text.indexOf('{', tag);
    return start < 0 ? undefined : balancedObject(text, start);
  }
  const fence = /```(?:json)?\s*\n(\{[\s\S]*?)```/i.exec(text);
  if (fence) return fence[1]!.trim();
  const t = text.trim();
  return t.startsWith('{') ? balancedObject(t, 0) : undefined;
}

/** From `start` (a `{`) to its matching `}`, minding strings; to the end of text when it never closes. */
export function balancedObject(text: string, start: number): string {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start);
}
