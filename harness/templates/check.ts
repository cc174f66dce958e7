import { sha256, stableStringify } from '../core/hash.ts';
import { BudgetExceeded, CHECK_BUDGET, compileTemplate, RENDER_BUDGET, RenderAllowance } from './engine.ts';
import { TemplateError } from './errors.ts';
import { detectTemplateFamily, type FamilyDetection } from './family.ts';
import { detectAttempt } from '../parse/detect.ts';
import {
  callMessage,
  FOLLOW_UP,
  PROBE_TOOL,
  PROBE_TOOL_DESCRIPTION,
  PROBE_TOOL_NAME,
  standardHistory,
  systemMessage,
  toolResultMessage,
  userMessage,
} from './fixtures.ts';
import { DEFAULT_NOW, renderChat } from './render.ts';
import {
  applyShape,
  chooseShape,
  pickProbeTools,
  priorCallOutcome,
  SHAPES,
  shapeLabel,
  type CallIdStyle,
  type MessageShape,
  type ShapeTrial,
} from './shapes.ts';
import type { ChatMessage, OpenAITool } from './types.ts';

export const FINDING_IDS = [
  'render_budget_exceeded',
  'tools_not_rendered',
  'prior_tool_call_dropped',
  'system_prompt_drops_tool_instructions',
  'injected_date',
  'doubled_braces',
  'raises_on_standard_shape',
  'template_unparseable',
] as const;
export type FindingId = (typeof FINDING_IDS)[number];

export interface Repro {
  messages: ChatMessage[];
  tools?: OpenAITool[];
  addGenerationPrompt: boolean;
  /** The prompt the repro renders to (absent when it raises). */
  rendered?: string;
}

export interface Finding {
  id: FindingId;
  detail: string;
  /** The message shape the repro uses, when shapes matter. */
  shape?: MessageShape;
  repro: Repro;
}

export interface TemplateCheck {
  template: string;
  sha256: string;
  /** the tool-call family the template writes (detected from a rendered call; see family.ts) */
  family: string | null;
  /** how the family was found, the call as the template writes it, and whether a reference template exists */
  familyDetection: { how: FamilyDetection['how']; verified: boolean; call?: string };
  /** The shape that keeps prior calls (what the probe renders with), or null. */
  shape: MessageShape | null;
  findings: Finding[];
  /** What our engine could not render faithfully: never template defects. */
  engineLimitations: string[];
  shapesTried: ShapeTrial[];
  /** Checks that could not conclude, and why. */
  notes: string[];
}

export interface CheckOptions {
  name?: string;
  now?: Date;
  /** What all the check's renders may spend together (default CHECK_BUDGET). */
  budget?: { steps: number; ms: number };
}

type Outcome = { ok: true; text: string } | { ok: false; error: TemplateError };

interface RenderOpts {
  now?: Date;
  /** Pass the `date_string` variable (default true, as renderChat does). */
  dateVariables?: boolean;
}

/** One template's renders, memoised, with every engine limitation met along the way. */
class Session {
  private memo = new Map<string, Outcome>();
  readonly limitations = new Set<string>();
  /** the first render that ran out of budget: every later render is refused at once (no hang, no repeat) */
  budget: { error: TemplateError; messages: ChatMessage[]; tools: OpenAITool[] | undefined } | null = null;
  /** The budget of all renders together: a template just under the per-render budget cannot take minutes. */
  readonly allowance: RenderAllowance;
  constructor(
    readonly source: string,
    readonly now: Date,
    budget: { steps: number; ms: number } = CHECK_BUDGET,
  ) {
    this.allowance = new RenderAllowance(budget);
  }

  render(messages: ChatMessage[], tools: OpenAITool[] | undefined, opts: RenderOpts = {}): Outcome {
    if (this.budget) return { ok: false, error: this.budget.error };
    const now = opts.now ?? this.now;
    const dateVariables = opts.dateVariables ?? true;
    const key = stableStringify({ messages, tools: tools ?? null, now: now.toISOString(), dateVariables });
    const hit = this.memo.get(key);
    if (hit) return hit;
    let out: Outcome;
    try {
      const text = renderChat(this.source, {
        messages,
        tools,
        addGenerationPrompt: true,
        now,
        extra: dateVariables ? undefined : { date_string: undefined },
        allowance: this.allowance,
      });
      out = { ok: true, text };
    } catch (e) {
      const error =
        e instanceof TemplateError ? e : new TemplateError('render_error', e instanceof Error ? e.message : String(e));
      if (error.kind === 'engine_unsupported') this.limitations.add(error.message);
      if (error.kind === 'budget_exceeded') this.budget = { error, messages, tools };
      out = { ok: false, error };
    }
    this.memo.set(key, out);
    return out;
  }
}

const isFailure = (o: Outcome): o is { ok: false; error: TemplateError } =>
  !o.ok && o.error.kind !== 'engine_unsupported' && o.error.kind !== 'budget_exceeded';
const hasCall = (messages: ChatMessage[]): boolean =>
  messages.some((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0);
/** Quote a passage for a finding's detail: backticks, newlines shown as \n, long passages cut. */
const quote = (s: string, max = 160): string =>
  `\`${(s.length > max ? `${s.slice(0, max)}…` : s).replace(/\n/g, '\\n')}\``;

/**
 * Remove messages (and the tools) while `holds` stays true: the fewest messages that still show the defect.
 * Greedy one-at-a-time removal, repeated until nothing more can go; at least one message remains.
 */
function minimise(
  messages: ChatMessage[],
  tools: OpenAITool[] | undefined,
  holds: (messages: ChatMessage[], tools: OpenAITool[] | undefined) => boolean,
): { messages: ChatMessage[]; tools: OpenAITool[] | undefined } {
  let cur = messages;
  let t = tools;
  if (t && holds(cur, undefined)) t = undefined;
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = 0; i < cur.length && cur.length > 1; i++) {
      const candidate = cur.filter((_, j) => j !== i);
      if (holds(candidate, t)) {
        cur = candidate;
        changed = true;
        break;
      }
    }
  }
  if (t && holds(cur, undefined)) t = undefined;
  return { messages: cur, tools: t };
}

function repro(session: Session, messages: ChatMessage[], tools: OpenAITool[] | undefined): Repro {
  const out = session.render(messages, tools);
  return {
    messages,
    ...(tools ? { tools } : {}),
    addGenerationPrompt: true,
    ...(out.ok ? { rendered: out.text } : {}),
  };
}

function describeError(error: TemplateError): string {
  // The raise message is kept exact (JSON) so that repairs can find the call in the source.
  return error.kind === 'raised'
    ? `raise_exception(${JSON.stringify(error.message)})`
    : `error ${quote(error.message)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Dates

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?';
const DATE_PATTERNS = [
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)? ${MONTH},? \\d{4}\\b`, 'g'),
  new RegExp(`\\b${MONTH} \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}\\b`, 'g'),
  /\b\d{4}-\d{2}-\d{2}\b/g,
  /\b\d{4}\/\d{1,2}\/\d{1,2}\b/g,
  /\b\d{1,2}[/.]\d{1,2}[/.]\d{4}\b/g,
];

function dateLiterals(text: string): Set<string> {
  const out = new Set<string>();
  for (const re of DATE_PATTERNS) for (const m of text.matchAll(re)) out.add(m[0]);
  return out;
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const start = Math.max(0, a.lastIndexOf('\n', i - 1) + 1, i - 60);
  return a.slice(start, i + 40).split('\n')[0] ?? '';
}

interface DateEvidence {
  clockItself: string | null;
  clockVariable: string | null;
  fixed: string[];
}

function dateEvidence(
  session: Session,
  messages: ChatMessage[],
  tools: OpenAITool[] | undefined,
  alt: Date,
): DateEvidence | null {
  const inputs = JSON.stringify({ messages, tools });
  const a = session.render(messages, tools);
  const b = session.render(messages, tools, { now: alt });
  const la = session.render(messages, tools, { dateVariables: false });
  const lb = session.render(messages, tools, { dateVariables: false, now: alt });
  if (!a.ok || !b.ok) return null;
  const clockItself = la.ok && lb.ok && la.text !== lb.text ? firstDifference(la.text, lb.text) : null;
  const clockVariable = !clockItself && a.text !== b.text ? firstDifference(a.text, b.text) : null;
  const fixed: string[] = [];
  if (la.ok && lb.ok) {
    const later = dateLiterals(lb.text);
    for (const d of dateLiterals(la.text)) if (later.has(d) && !inputs.includes(d)) fixed.push(d);
  }
  return clockItself || clockVariable || fixed.length > 0 ? { clockItself, clockVariable, fixed } : null;
}

// ---------------------------------------------------------------------------------------------------------
// Braces

/** Within one of the template's literals: a complete `{…}` object followed by one more `}` (e.g. `…"object"}}`). */
function overClosedExample(literal: string): string | null {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  let lastObject = -1;
  for (let i = 0; i < literal.length; i++) {
    const c = literal[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}') {
      if (depth > 0) {
        depth--;
        if (depth === 0) lastObject = start;
      } else if (lastObject >= 0 && literal[i - 1] === '}') {
        const example = literal.slice(lastObject, i + 1);
        if (example.includes('"')) return example;
      }
    }
  }
  return null;
}

function doubledBraces(text: string, literals: string[], inputs: string): string | null {
  if (!inputs.includes('{{')) {
    const at = text.indexOf('{{');
    if (at >= 0) {
      const end = text.indexOf('}}', at);
      return text.slice(at, end >= 0 && end - at < 200 ? end + 2 : at + 80);
    }
  }
  for (const literal of literals) {
    const example = overClosedExample(literal);
    if (example && text.includes(example)) return example;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// Tool instructions

const MARKERS = /\n|<\|[^|\n]{1,40}\|>|<｜[^｜\n]{1,40}｜>|\[\/?[A-Z][A-Z_]{1,30}\]|<\/?[a-z_]{2,30}>/g;
/** A sentence end followed by the next sentence's start (templates often glue two messages without a space). */
const SENTENCE = /(?<=[.!?])\s*(?=[A-Z#])/;

/** The prompt's passages: text between markup and line breaks, cut into sentences. */
function passages(text: string): string[] {
  return text
    .split(MARKERS)
    .flatMap((s) => s.split(SENTENCE))
    .map((s) => s.trim())
    .filter((s) => s.length >= 12 && /[A-Za-z]{3}/.test(s));
}

/** A passage that tells the model how to write a call (not a persona sentence or a date line). */
function isFormatInstruction(p: string): boolean {
  if (detectAttempt(p)) return true; // an example call or call markup
  return (
    /\b(?:format|json|xml|syntax|schema|example|tags?|markup|arguments?|parameters?)\b/i.test(p) &&
    /\b(?:tools?|functions?|calls?|calling)\b/i.test(p)
  );
}

// ---------------------------------------------------------------------------------------------------------

function emptyCheck(source: string, name: string): TemplateCheck {
  return {
    template: name,
    sha256: sha256(source),
    family: null,
    familyDetection: { how: 'none', verified: false },
    shape: null,
    findings: [],
    engineLimitations: [],
    shapesTried: [],
    notes: [],
  };
}

/**
 * Check a chat template for tool-calling defects (see docs/probe.md, "Templates"). Never throws: an internal
 * failure of a
 * check becomes a note, and whatever the engine cannot render faithfully becomes an engine limitation.
 */
export function checkTemplate(source: string, opts: CheckOptions = {}): TemplateCheck {
  const src = typeof source === 'string' ? source : String(source);
  const name = opts.name ?? 'template';
  let result: TemplateCheck;
  try {
    result = emptyCheck(src, name);
  } catch (e) {
    return {
      template: name,
      sha256: '',
      family: null,
      familyDetection: { how: 'none', verified: false },
      shape: null,
      findings: [],
      engineLimitations: [],
      shapesTried: [],
      notes: [String(e)],
    };
  }
  try {
    runChecks(src, opts, result);
  } catch (e) {
    result.notes.push(`check aborted: ${e instanceof Error ? e.message : String(e)}`);
  }
  return result;
}

function runChecks(source: string, opts: CheckOptions, result: TemplateCheck): void {
  const now = opts.now instanceof Date && !Number.isNaN(opts.now.getTime()) ? opts.now : DEFAULT_NOW;
  const session = new Session(source, now, opts.budget);
  try {
    checkWith(session, now, result);
    if (!session.budget) {
      const d = detectTemplateFamily(source, session.allowance);
      result.family = d.family;
      result.familyDetection = { how: d.how, verified: d.verified, ...(d.call !== undefined ? { call: d.call } : {}) };
    }
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    session.budget ??= { error: new TemplateError('budget_exceeded', e.message), messages: [], tools: undefined };
  } finally {
    result.engineLimitations = [...session.limitations];
    if (session.budget) {
      // a template that loops this long is a defect of its own; what was checked before stays reported
      const b = session.budget;
      result.findings.unshift({
        id: 'render_budget_exceeded',
        detail: `rendering stopped: ${b.error.message} (limits: ${RENDER_BUDGET.steps} evaluation steps, ${RENDER_BUDGET.ms} ms per render; ${session.allowance.limits.steps} steps, ${session.allowance.limits.ms} ms for all renders); later checks skipped`,
        repro: { messages: b.messages, ...(b.tools ? { tools: b.tools } : {}), addGenerationPrompt: true },
      });
    }
  }
}

function checkWith(session: Session, now: Date, result: TemplateCheck): void {
  const source = session.source;
  const alt = new Date(now.getTime() + 2_000 * 86_400_000 + 33_300_000); // another year, month, day and hour
  const guard = (label: string, fn: () => void) => {
    try {
      fn();
    } catch (e) {
      result.notes.push(`${label}: check failed internally: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  // Parse.
  let literals: string[];
  try {
    literals = compileTemplate(source).literals;
  } catch (e) {
    const error = e instanceof TemplateError ? e : new TemplateError('unparseable', String(e));
    if (error.kind === 'engine_unsupported') {
      session.limitations.add(error.message);
      result.notes.push('nothing checked: the engine cannot parse this template');
    } else {
      result.findings.push({
        id: 'template_unparseable',
        detail: error.message,
        repro: { messages: [userMessage()], addGenerationPrompt: true },
      });
    }
    return;
  }

  // The probe tools and the simplest render; nothing more is tried when even that cannot be rendered.
  const tools = pickProbeTools(source, { now }, (t) => {
    const o = session.render([userMessage()], t);
    return o.ok ? null : o.error;
  });
  if (tools[0] !== PROBE_TOOL) {
    session.render([userMessage()], [PROBE_TOOL]); // records the limitation that made us fall back
    result.notes.push(
      'the engine cannot render the probe tool with parameter descriptions; checked with a plain tool instead',
    );
  }
  const inputs = JSON.stringify({ h: standardHistory(), tools, s: systemMessage() });
  const base = session.render([userMessage()], tools);
  if (!base.ok) {
    if (isFailure(base)) {
      result.findings.push({
        id: 'raises_on_standard_shape',
        detail: `raises on a single user message with tools: ${describeError(base.error)}`,
        repro: repro(session, [userMessage()], tools),
      });
    } else if ((base as { error: TemplateError }).error.kind === 'budget_exceeded') {
      result.notes.push('nothing checked: a single user message already runs out of the render budget');
    } else {
      result.notes.push('nothing checked: the engine cannot render even a single user message');
    }
    return;
  }
  const choice = chooseShape(source, tools, { now });
  result.shape = choice.shape;
  result.shapesTried = choice.tried;
  for (const t of choice.tried) if (t.errorKind === 'engine_unsupported' && t.error) session.limitations.add(t.error);

  guard('tools_not_rendered', () => {
    const missing = [PROBE_TOOL_NAME, PROBE_TOOL_DESCRIPTION].filter((s) => !base.text.includes(s));
    if (missing.length === 0) return;
    const elsewhere = [
      session.render([systemMessage(), userMessage()], tools),
      ...(choice.shape ? [session.render(applyShape(standardHistory(), choice.shape), tools)] : []),
    ].some((o) => o.ok && missing.every((s) => o.text.includes(s)));
    if (elsewhere) return;
    const what =
      missing.length === 2
        ? `the tool's name (${PROBE_TOOL_NAME}) and description`
        : missing[0] === PROBE_TOOL_NAME
          ? `the tool's name (${PROBE_TOOL_NAME})`
          : "the tool's description";
    result.findings.push({
      id: 'tools_not_rendered',
      detail: `tools are passed but ${what} never appear in the prompt (tried a single user message, with and without a system message, and the multi-turn history)`,
      repro: repro(session, [userMessage()], tools),
    });
  });

  guard('prior_tool_call_dropped', () => {
    if (choice.shape) return;
    const dropped = choice.tried.filter((t) => t.outcome === 'dropped');
    if (dropped.length === 0) return; // every shape errors: reported by the raise checks (or an engine limitation)
    const shape = dropped[0]!.shape;
    const min = minimise(applyShape(standardHistory(), shape), tools, (m, t) => {
      if (!hasCall(m)) return false;
      const o = session.render(m, t);
      return o.ok && priorCallOutcome(o.text) === 'dropped';
    });
    const errors = choice.tried.length - dropped.length;
    result.findings.push({
      id: 'prior_tool_call_dropped',
      detail:
        `no message shape keeps the prior assistant tool call (${PROBE_TOOL_NAME} with city "Paris") in the history: ` +
        `${dropped.length} of ${choice.tried.length} shapes render without it${errors ? `, ${errors} fail` : ''}`,
      shape,
      repro: repro(session, min.messages, min.tools),
    });
  });

  guard('system_prompt_drops_tool_instructions', () => {
    const withSystem = session.render([systemMessage(), userMessage()], tools);
    if (!withSystem.ok) return; // a raise here is reported by the raise checks
    const noTools = session.render([userMessage()], undefined);
    const plain = new Set(noTools.ok ? passages(noTools.text) : []);
    // the passages tools add to the prompt, then those a user system message makes disappear
    const added = passages(base.text).filter((f) =>
      noTools.ok
        ? !plain.has(f) && !inputs.includes(f)
        : f.includes(PROBE_TOOL_NAME) || f.includes(PROBE_TOOL_DESCRIPTION),
    );
    const lost = added.filter((f) => !withSystem.text.includes(f));
    // only instructions about the call format count: a replaced default persona ("You are Qwen…") is not a defect
    const lostFormat = lost.filter(isFormatInstruction);
    const toolListLost = base.text.includes(PROBE_TOOL_NAME) && !withSystem.text.includes(PROBE_TOOL_NAME);
    if (lostFormat.length === 0 && !toolListLost) {
      if (lost.length > 0)
        result.notes.push(
          `a user system message replaces ${lost.length} tool-time passage(s) that are not call-format instructions (e.g. ${quote(lost[0]!, 80)}): not reported`,
        );
      return;
    }
    result.findings.push({
      id: 'system_prompt_drops_tool_instructions',
      detail:
        `with a user system message the prompt loses ${lostFormat.length} call-format instruction passage(s) it has without one` +
        `${toolListLost ? ', and the tool list' : ''}${
          lostFormat.length
            ? `: ${lostFormat
                .slice(0, 2)
                .map((f) => quote(f, 100))
                .join(', ')}`
            : ''
        }`,
      repro: repro(session, [systemMessage(), userMessage()], tools),
    });
  });

  guard('injected_date', () => {
    const evidence = dateEvidence(session, [userMessage()], tools, alt);
    if (!evidence) return;
    const min = minimise([userMessage()], tools, (m, t) => dateEvidence(session, m, t, alt) !== null);
    const parts: string[] = [];
    if (evidence.clockItself)
      parts.push(`reads the clock (strftime_now): ${quote(evidence.clockItself)} changes with the date`);
    if (evidence.clockVariable)
      parts.push(`prints the date_string variable the serving stack passes: ${quote(evidence.clockVariable)}`);
    if (evidence.fixed.length)
      parts.push(
        `contains a fixed date not taken from the messages: ${evidence.fixed.map((d) => quote(d)).join(', ')}`,
      );
    result.findings.push({
      id: 'injected_date',
      detail: `the template injects a date: ${parts.join('; ')}`,
      repro: repro(session, min.messages, min.tools),
    });
  });

  guard('doubled_braces', () => {
    const texts: Array<[ChatMessage[], OpenAITool[] | undefined, Outcome]> = [[[userMessage()], tools, base]];
    if (choice.shape) {
      const h = applyShape(standardHistory(), choice.shape);
      texts.push([h, tools, session.render(h, tools)]);
    }
    for (const [messages, t, o] of texts) {
      if (!o.ok) continue;
      const example = doubledBraces(o.text, literals, inputs);
      if (!example) continue;
      const min = minimise(messages, t, (m, tt) => {
        const r = session.render(m, tt);
        return r.ok && doubledBraces(r.text, literals, inputs) !== null;
      });
      result.findings.push({
        id: 'doubled_braces',
        detail: `the template's own format example has doubled braces in the rendered prompt (broken JSON): ${quote(example.length > 160 ? `…${example.slice(-150)}` : example)}`,
        repro: repro(session, min.messages, min.tools),
      });
      return;
    }
  });

  guard('raises_on_standard_shape', () => raiseChecks(session, choice.shape, choice.tried, tools, result));
}

interface RaiseProbe {
  group: string;
  label: string;
  messages: ChatMessage[];
  shape?: MessageShape;
}

function raiseChecks(
  session: Session,
  chosen: MessageShape | null,
  tried: ShapeTrial[],
  tools: OpenAITool[],
  result: TemplateCheck,
): void {
  const history = standardHistory();
  const probes: RaiseProbe[] = [];
  const s = chosen ?? SHAPES[0]!;
  if (chosen) {
    // Each probe changes one thing of a history that renders: a failure is caused by that one thing.
    for (const as of ['object', 'string'] as const) {
      if (as === s.argumentsAs) continue;
      const shape = { ...s, argumentsAs: as };
      probes.push({
        group: 'arguments',
        label: as === 'object' ? 'dict arguments' : 'string (JSON) arguments',
        messages: applyShape(history, shape),
        shape,
      });
    }
    for (const c of ['null', 'empty'] as const) {
      if (c === s.contentWhenCalls) continue;
      const shape = { ...s, contentWhenCalls: c };
      probes.push({
        group: 'content',
        label: c === 'null' ? 'content null next to tool calls' : 'content "" next to tool calls',
        messages: applyShape(history, shape),
        shape,
      });
    }
    const withIds = { ...s, withCallIds: true };
    const idVariants: Array<[string, MessageShape, CallIdStyle]> = [
      s.withCallIds
        ? ['missing call ids', { ...s, withCallIds: false }, 'nine']
        : ['9-character call ids', withIds, 'nine'],
      ['OpenAI-style call ids ("call_" + 24 characters)', withIds, 'openai'],
      ['short call ids ("call_0")', withIds, 'short'],
    ];
    for (const [label, shape, style] of idVariants)
      probes.push({ group: 'call ids', label, messages: applyShape(history, shape, style), shape });
  } else {
    // No shape renders the history: report each distinct failure once.
    const seen = new Set<string>();
    for (const t of tried) {
      if (t.outcome !== 'error' || t.errorKind === 'engine_unsupported' || seen.has(t.error ?? '')) continue;
      seen.add(t.error ?? '');
      probes.push({
        group: `history ${seen.size}`,
        label: `a standard tool-calling history (${shapeLabel(t.shape)}; every shape tried fails)`,
        messages: applyShape(history, t.shape),
        shape: t.shape,
      });
    }
  }
  probes.push(
    {
      group: 'consecutive users',
      label: 'non-alternating roles (two consecutive user messages)',
      messages: [userMessage(), userMessage(FOLLOW_UP)],
    },
    {
      group: 'user after tool',
      label: 'non-alternating roles (a user message right after a tool result)',
      messages: applyShape([userMessage(), callMessage(), toolResultMessage(), userMessage(FOLLOW_UP)], s),
      shape: s,
    },
    { group: 'system', label: 'a system message', messages: [systemMessage(), userMessage()] },
  );

  // Run the probes; merge failures of the same group with the same error into one finding.
  const byGroup = new Map<string, { labels: string[]; probe: RaiseProbe; error: TemplateError }>();
  const historyErrors = new Set<string>();
  for (const probe of probes) {
    const o = session.render(probe.messages, tools);
    if (!isFailure(o)) continue;
    const errorKey = `${o.error.kind}\u0000${o.error.message}`;
    // Without a working shape, role probes that fail like the history itself add nothing.
    if (probe.group.startsWith('history ')) historyErrors.add(errorKey);
    else if (historyErrors.has(errorKey)) continue;
    const key = `${probe.group}\u0000${o.error.kind}\u0000${o.error.message}`;
    const hit = byGroup.get(key);
    if (hit) hit.labels.push(probe.label);
    else byGroup.set(key, { labels: [probe.label], probe, error: o.error });
  }
  // Minimise; probes whose minimal repros coincide (same error, same messages) are one finding.
  const found = new Map<string, { labels: string[]; probe: RaiseProbe; error: TemplateError; repro: Repro }>();
  for (const { labels, probe, error } of byGroup.values()) {
    const min = minimise(probe.messages, tools, (m, t) => {
      const r = session.render(m, t);
      return !r.ok && r.error.kind === error.kind && r.error.message === error.message;
    });
    const key = stableStringify({ e: error.message, m: min.messages, t: min.tools ?? null });
    const hit = found.get(key);
    if (hit) hit.labels.push(...labels);
    else found.set(key, { labels: [...labels], probe, error, repro: repro(session, min.messages, min.tools) });
  }
  for (const { labels, probe, error, repro: r } of found.values()) {
    result.findings.push({
      id: 'raises_on_standard_shape',
      detail: `raises on ${labels.join(', ')}: ${describeError(error)}`,
      ...(probe.shape ? { shape: probe.shape } : {}),
      repro: r,
    });
  }
}
