import { deriveSeed, Rng } from '../core/rng.ts';
import { TemplateError, type TemplateErrorKind } from './errors.ts';
import {
  PROBE_ARGUMENT_VALUE,
  PROBE_TOOL,
  PROBE_TOOL_NAME,
  PROBE_TOOL_PLAIN,
  standardHistory,
  userMessage,
} from './fixtures.ts';
import { renderChat } from './render.ts';
import type { ChatMessage, OpenAITool, TemplateToolCall } from './types.ts';

/** How assistant tool calls are written into the message list a template receives. */
export interface MessageShape {
  argumentsAs: 'string' | 'object';
  withCallIds: boolean;
  contentWhenCalls: 'null' | 'empty' | 'absent';
}

/**
 * Every shape, in the order chooseShape prefers them: dict arguments first (what transformers documents and what
 * most templates `tojson`), ids before none, content null (what the OpenAI API returns) before "" and absent.
 */
export const SHAPES: readonly MessageShape[] = (['object', 'string'] as const).flatMap((argumentsAs) =>
  [true, false].flatMap((withCallIds) =>
    (['null', 'empty', 'absent'] as const).map((contentWhenCalls) => ({ argumentsAs, withCallIds, contentWhenCalls })),
  ),
);

export const shapeLabel = (s: MessageShape): string =>
  `${s.argumentsAs} arguments, ${s.withCallIds ? 'with' : 'without'} call ids, content ${s.contentWhenCalls === 'empty' ? '""' : s.contentWhenCalls} with calls`;

/** `nine`: 9 alphanumeric characters (Mistral's rule); `openai`: "call_" + 24; `short`: "call_0". */
export type CallIdStyle = 'nine' | 'openai' | 'short';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function makeCallId(style: CallIdStyle, index: number, name: string): string {
  if (style === 'short') return `call_${index}`;
  const rng = new Rng(deriveSeed(20260115, 'call-id', index, name));
  const length = style === 'nine' ? 9 : 24;
  let id = '';
  for (let i = 0; i < length; i++) id += ALNUM[rng.int(ALNUM.length)];
  return style === 'nine' ? id : `call_${id}`;
}

function convertArguments(
  args: string | Record<string, unknown>,
  as: MessageShape['argumentsAs'],
): string | Record<string, unknown> {
  if (as === 'string') return typeof args === 'string' ? args : JSON.stringify(args);
  if (typeof args !== 'string') return args;
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : args;
  } catch {
    return args; // not JSON: nothing to convert
  }
}

/**
 * Convert standard OpenAI messages into `shape`. Call ids are generated deterministically (the n-th call of the
 * conversation always gets the same id) and tool results are re-linked to them: by their old `tool_call_id`, or
 * in order when they had none. Real text content next to calls is kept; only null/""/absent is normalised.
 */
export function applyShape(
  messages: readonly ChatMessage[],
  shape: MessageShape,
  idStyle: CallIdStyle = 'nine',
): ChatMessage[] {
  const byOldId = new Map<string, string>();
  const pending: string[] = [];
  let counter = 0;
  return messages.map((m) => {
    const out: ChatMessage = { ...m };
    if (m.tool_calls && m.tool_calls.length > 0) {
      out.tool_calls = m.tool_calls.map((c) => {
        const id = makeCallId(idStyle, counter++, c.function.name);
        if (c.id !== undefined) byOldId.set(c.id, id);
        pending.push(id);
        const fn = { name: c.function.name, arguments: convertArguments(c.function.arguments, shape.argumentsAs) };
        const call: TemplateToolCall = shape.withCallIds
          ? { id, type: 'function', function: fn }
          : { type: 'function', function: fn };
        return call;
      });
      if (m.role === 'assistant' && (m.content === null || m.content === undefined || m.content === '')) {
        if (shape.contentWhenCalls === 'absent') delete out.content;
        else out.content = shape.contentWhenCalls === 'null' ? null : '';
      }
    }
    if (m.role === 'tool') {
      let id: string | undefined;
      if (m.tool_call_id !== undefined && byOldId.has(m.tool_call_id)) {
        id = byOldId.get(m.tool_call_id);
        const at = pending.indexOf(id!);
        if (at >= 0) pending.splice(at, 1);
      } else {
        id = pending.shift();
      }
      if (shape.withCallIds && id !== undefined) out.tool_call_id = id;
      else delete out.tool_call_id;
    }
    return out;
  });
}

export type CallOutcome = 'kept' | 'double_encoded' | 'dropped';

/**
 * Does `rendered` still show the prior call? Its argument value must appear within a short distance of the
 * tool's name. `double_encoded` when the value only appears inside a JSON-escaped string (`\"Paris\"`): the call
 * is there, but as a stringified blob.
 */
export function priorCallOutcome(rendered: string, name = PROBE_TOOL_NAME, value = PROBE_ARGUMENT_VALUE): CallOutcome {
  const WINDOW = 300;
  let sawEscaped = false;
  for (let i = rendered.indexOf(value); i >= 0; i = rendered.indexOf(value, i + 1)) {
    const around = rendered.slice(Math.max(0, i - WINDOW), i + value.length + WINDOW);
    if (!around.includes(name)) continue;
    if (rendered.slice(Math.max(0, i - 2), i) === '\\"') sawEscaped = true;
    else return 'kept';
  }
  return sawEscaped ? 'double_encoded' : 'dropped';
}

export interface ShapeTrial {
  shape: MessageShape;
  outcome: CallOutcome | 'error';
  errorKind?: TemplateErrorKind;
  error?: string;
}

export interface ShapeChoice {
  /** The first shape that renders and keeps the prior call cleanly (else one that keeps it double-encoded). */
  shape: MessageShape | null;
  tried: ShapeTrial[];
  /** The tools the history was rendered with. */
  tools: OpenAITool[];
}

export interface ProbeOptions {
  now?: Date;
}

/**
 * The probe tools a template can render: the described tool, or the plain one when the engine cannot render the
 * described one (and can the plain one).
 */
export function pickProbeTools(
  source: string,
  opts: ProbeOptions = {},
  /** How to render a single user message with `tools` (lets a caller reuse its memoised renders). */
  attempt?: (tools: OpenAITool[]) => TemplateError | null,
): OpenAITool[] {
  const tryTools =
    attempt ??
    ((tools: OpenAITool[]): TemplateError | null => {
      try {
        renderChat(source, { messages: [userMessage()], tools, addGenerationPrompt: true, now: opts.now });
        return null;
      } catch (e) {
        return e instanceof TemplateError ? e : new TemplateError('render_error', String(e));
      }
    });
  const rich = tryTools([PROBE_TOOL]);
  if (rich?.kind !== 'engine_unsupported') return [PROBE_TOOL];
  const plain = tryTools([PROBE_TOOL_PLAIN]);
  return plain?.kind === 'engine_unsupported' ? [PROBE_TOOL] : [PROBE_TOOL_PLAIN];
}

/**
 * Render the standard multi-turn tool history in every shape; choose the first that renders without error and
 * keeps the prior call. Every trial is returned with its outcome.
 */
export function chooseShape(source: string, tools?: OpenAITool[], opts: ProbeOptions = {}): ShapeChoice {
  const used = tools ?? pickProbeTools(source, opts);
  const history = standardHistory();
  let budget: TemplateError | null = null;
  const tried: ShapeTrial[] = SHAPES.map((shape) => {
    // a render that ran out of budget would run out again for every shape: refused at once
    if (budget) return { shape, outcome: 'error', errorKind: budget.kind, error: budget.message };
    try {
      const rendered = renderChat(source, {
        messages: applyShape(history, shape),
        tools: used,
        addGenerationPrompt: true,
        now: opts.now,
      });
      return { shape, outcome: priorCallOutcome(rendered) };
    } catch (e) {
      const err =
        e instanceof TemplateError ? e : new TemplateError('render_error', e instanceof Error ? e.message : String(e));
      if (err.kind === 'budget_exceeded') budget = err;
      return { shape, outcome: 'error', errorKind: err.kind, error: err.message };
    }
  });
  const chosen = tried.find((t) => t.outcome === 'kept') ?? tried.find((t) => t.outcome === 'double_encoded');
  return { shape: chosen?.shape ?? null, tried, tools: used };
}
