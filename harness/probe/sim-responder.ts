import { readFileSync } from 'node:fs';
import { headerId } from '../core/ids.ts';
import { fromRoot } from '../core/paths.ts';
import type { ChatMessage as CoreMessage, OpenAITool } from '../core/chat.ts';
import type { RunConfig } from '../core/config.ts';
import { jsonToPy, pyRepr } from '../core/pyliteral/index.ts';
import { deriveSeed, hashString, Rng } from '../core/rng.ts';
import type { PolicySpec } from '../sim/policy-spec.ts';
import type { ChatBody, Responder, SimCompletion, SimRequestContext } from '../sim/server.ts';
import type { SimReply } from '../sim/server.ts';
import { loadCases } from './cases/load.ts';
import { priorCalls, type ExpectedCall, type ProbeCase } from './cases/types.ts';
import { constraintOfRequest } from '../constrain/from-request.ts';
import { constrainedOutput } from '../constrain/simulate.ts';
import { familyOfTemplate, parseToolCalls, renderToolCalls, type Family, type ToolSchema } from '../parse/index.ts';
import { selectCases, type ProbeSettings } from './run/env.ts';
import {
  applyShape,
  chooseShape,
  detectFamily,
  referenceTemplate,
  renderChat,
  SHAPES,
  type MessageShape,
} from '../templates/index.ts';

/**
 * The simulated model on probe cases — a CALIBRATION FIXTURE, not a model. It knows each case's expected calls
 * from the suite's case file (loaded the same way the suite loads it, never from a request) and produces
 * exactly the behaviour a policy plants, so that attribution can be checked against a known truth:
 *
 * - `sim:oracle`: emits the expected calls in the template family's native format (renderToolCalls), or
 *   abstains in prose. Like a real model it reads the prompt: if a tool of the case is not in the prompt, or
 *   a prior call of a multi-turn case (its name and argument values, in the rendered assistant turn) is
 *   missing, it is confused and asks back instead of calling.
 * - `sim:fault?cause=parser_gap`: the right call in a near-miss format (code fence, prose around JSON) that only
 *   the lenient tier rescues; `format_failure`: a call attempt with the family's markers that nothing can
 *   rescue; `decision_failure`: a clean call with the wrong tool or wrong arguments, a call on an abstention
 *   case, or no call; `template_bug`: the oracle — the bug lives in a template (see below).
 * - `sim:wrong` = decision_failure on every case; `sim:coin?p=` = oracle with probability p, else
 *   decision_failure (seeded per case and trial); naive / untagged / flaky = oracle.
 *
 * Constraints. When the request carries one (a llama.cpp lazy grammar, a vLLM / SGLang structural tag, OpenAI
 * strict tools — harness/constrain/from-request.ts reads it back), the policy's text goes through the simulated
 * constrained decoder (harness/constrain/simulate.ts): a format fault is forced into a conforming call of what
 * the model meant, a decision fault (a clean wrong call, no call) stays, a forced free string may loop.
 *
 * Methods. The simulated model answers a method's naming prompts (`x-toolgauge-variant: pa_tool`) with the
 * name its own vocabulary gives a description (`simName`: the first two content words), with seeded noise
 * when sampled; it recognises the tools of a case under their presented names (chat: the request's tools,
 * position by position; completions: the names quoted in the prompt) and calls them by those names.
 *
 * Transports. Completions: toolgauge renders the template and sends text; the policy reads that text.
 * Chat: the simulator plays the server — it renders the messages with its own server template (the configured
 * `--template`, else under `fault?cause=template_bug` SIM_DROPPING_TEMPLATE, else toolgauge's reference
 * Hermes template), lets the policy answer the rendered prompt, and parses the answer with the strict parser of
 * the server template's family: a parsed call goes to `tool_calls`, anything else stays in `content`.
 */

/** A ChatML/Hermes server template with one deliberate defect: assistant turns keep only their text, so prior tool calls vanish. */
export const SIM_DROPPING_TEMPLATE_FILE = fromRoot('cases', 'probe', 'templates', 'sim-dropping-hermes.jinja');
export const SIM_DROPPING_TEMPLATE = readFileSync(SIM_DROPPING_TEMPLATE_FILE, 'utf8');

export type Behaviour = 'oracle' | 'template_bug' | 'parser_gap' | 'format_failure' | 'decision_failure';

export const CONFUSED_TEXT =
  "I'm not sure what you are referring to, I can't see that earlier request. Could you give me the details again?";
export const NO_TOOLS_TEXT = "I'm sorry, I don't have a way to do that from here.";
export const ABSTAIN_TEXT = 'Happy to help with that directly, no tool is needed here.';
export const NO_TOOL_TEXT = "I don't think I need a tool for this one.";

/** Which behaviour a policy plants on a case. */
export function behaviourFor(spec: PolicySpec, caseId: string, trial: number): Behaviour {
  switch (spec.name) {
    case 'fault':
      return spec.cause ?? 'oracle';
    case 'wrong':
      return 'decision_failure';
    case 'coin':
      return new Rng(deriveSeed(spec.seed, 'probe-coin', caseId, trial)).chance(spec.p) ? 'oracle' : 'decision_failure';
    default:
      return 'oracle';
  }
}

/**
 * The cases a planted fault shows on (the calibration's "affected cases"): a template bug only where a prior
 * call can go missing, a parser gap or a format failure only where a call is expected, a decision failure on
 * every case.
 */
export function faultAffects(
  c: Pick<ProbeCase, 'expected' | 'messages'>,
  cause: Exclude<Behaviour, 'oracle'>,
): boolean {
  if (cause === 'template_bug') return priorCalls(c).length > 0;
  if (cause === 'decision_failure') return true;
  return c.expected !== null;
}

// ---------------------------------------------------------------------------------------------------------
// Reading the prompt

export interface PromptView {
  missingTools: string[];
  missingCalls: string[];
}

const contentOf = (m: CoreMessage): string => (typeof m.content === 'string' ? m.content.trim() : '');

function findText(prompt: string, text: string, from: number): { at: number; end: number } | null {
  for (const form of [text, JSON.stringify(text).slice(1, -1)]) {
    const at = prompt.indexOf(form, from);
    if (at >= 0) return { at, end: at + form.length };
  }
  return null;
}

function leaves(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) leaves(x, out);
  else if (v !== null && v !== undefined) out.push(String(v));
  return out;
}

function callVisible(region: string, name: string, args: Record<string, unknown>): boolean {
  if (!region.includes(name)) return false;
  return leaves(args).every((s) => {
    const alt = s === 'true' ? 'True' : s === 'false' ? 'False' : s;
    return region.includes(s) || region.includes(alt) || region.includes(JSON.stringify(s).slice(1, -1));
  });
}

/**
 * What the model can see: the case's tools must be named in the prompt, and each prior assistant call must
 * appear — its name and every argument value — in the rendered text between the message before it and the
 * message after it. Pure.
 */
export function readPrompt(c: Pick<ProbeCase, 'tools' | 'messages'>, prompt: string): PromptView {
  const missingTools = c.tools.map((t) => t.function.name).filter((n) => !prompt.includes(n));
  const missingCalls: string[] = [];
  const msgs = c.messages;
  let pos = 0;
  msgs.forEach((m, i) => {
    if (m.role === 'assistant' && m.tool_calls?.length) {
      let end = prompt.length;
      for (let j = i + 1; j < msgs.length; j++) {
        const t = msgs[j]!.role === 'system' ? '' : contentOf(msgs[j]!);
        const hit = t ? findText(prompt, t, pos) : null;
        if (hit) {
          end = hit.at;
          break;
        }
      }
      const region = prompt.slice(pos, end);
      for (const p of priorCalls({ messages: [m] }))
        if (!callVisible(region, p.name, p.arguments)) missingCalls.push(p.name);
      pos = end;
      return;
    }
    // System prompts are often moved (Mistral puts them into the last user turn): they do not mark a position.
    const t = m.role === 'system' ? '' : contentOf(m);
    const hit = t ? findText(prompt, t, pos) : null;
    if (hit) pos = hit.end;
  });
  return { missingTools, missingCalls };
}

// ---------------------------------------------------------------------------------------------------------
// Outputs

const asParsed = (calls: readonly ExpectedCall[]) => calls.map((c) => ({ name: c.name, arguments: c.arguments }));

/**
 * The right call(s) in a near miss of every native format: a Python-style dict (single quotes — no family's
 * framework parser reads it, a forgiving one does), fenced, inside prose, or in a labelled fence.
 */
export function nearMiss(calls: readonly ExpectedCall[], key: string): string {
  const objs = asParsed(calls);
  const json = pyRepr(jsonToPy(objs.length === 1 ? objs[0] : objs));
  switch (hashString(`near|${key}`) % 3) {
    case 0:
      return '```json\n' + json + '\n```';
    case 1:
      return `Sure, I will use a tool for this: ${json}`;
    default:
      return '```tool_call\n' + json + '\n```';
  }
}

function flat(v: unknown): string {
  if (Array.isArray(v)) return v.map(flat).join(' and ');
  if (v && typeof v === 'object')
    return Object.entries(v)
      .map(([k, x]) => `${k} ${flat(x)}`)
      .join(' and ');
  return String(v);
}

/** A call attempt with the family's markers that no parser can recover: no JSON, no call syntax. */
export function garbled(calls: readonly ExpectedCall[]): string {
  return calls
    .map(
      (c) =>
        `<tool_call>\nname=${c.name}; arguments: ${Object.entries(c.arguments)
          .map(([k, v]) => `${k} -> ${flat(v)}`)
          .join(', ')}\n</tool_call>`,
    )
    .join('\n');
}

function wrongValue(v: unknown): unknown {
  if (typeof v === 'number') return v * 10 + 7;
  if (typeof v === 'boolean') return !v;
  if (Array.isArray(v)) return v.length > 0 ? [] : ['zzz wrong value'];
  if (v && typeof v === 'object') {
    const [k, x] = Object.entries(v)[0] ?? [];
    return k === undefined ? { zzz: 'wrong value' } : { ...v, [k]: wrongValue(x) };
  }
  return 'zzz wrong value';
}

/** Placeholder arguments for a tool's required parameters (a false trigger needs some call). */
function placeholderArgs(tool: OpenAITool): Record<string, unknown> {
  const params = tool.function.parameters as
    | { properties?: Record<string, { type?: string }>; required?: string[] }
    | undefined;
  const out: Record<string, unknown> = {};
  for (const k of params?.required ?? []) {
    const t = params?.properties?.[k]?.type;
    out[k] =
      t === 'number' || t === 'integer'
        ? 1
        : t === 'boolean'
          ? true
          : t === 'array'
            ? []
            : t === 'object'
              ? {}
              : 'something';
  }
  return out;
}

/** A clean but wrong decision: wrong tool, wrong arguments, a dropped parallel call, a false trigger or no call. */
export function wrongDecision(c: Pick<ProbeCase, 'id' | 'expected' | 'tools'>): ExpectedCall[] | null {
  if (c.expected === null) {
    const t = c.tools[0]!;
    return [{ name: t.function.name, arguments: placeholderArgs(t) }];
  }
  if (c.expected.length > 1) return c.expected.slice(0, -1);
  const call = c.expected[0]!;
  const variant = hashString(`decision|${c.id}`) % 4;
  if (variant === 0) return null;
  const other = c.tools.find((t) => t.function.name !== call.name);
  if (variant !== 3 && other) return [{ name: other.function.name, arguments: call.arguments }];
  const [k, v] = Object.entries(call.arguments)[0] ?? [];
  if (k === undefined) return other ? [{ name: other.function.name, arguments: {} }] : null;
  return [{ name: call.name, arguments: { ...call.arguments, [k]: wrongValue(v) } }];
}

/** The simulated model's raw text for a case, given the prompt it sees. Pure. */
export function modelOutput(behaviour: Behaviour, c: ProbeCase, prompt: string, family: Family): string {
  const view = readPrompt(c, prompt);
  if (view.missingTools.length > 0) return NO_TOOLS_TEXT;
  if (view.missingCalls.length > 0) return CONFUSED_TEXT;
  switch (behaviour) {
    case 'parser_gap':
      return c.expected ? nearMiss(c.expected, c.id) : ABSTAIN_TEXT;
    case 'format_failure':
      return c.expected ? garbled(c.expected) : ABSTAIN_TEXT;
    case 'decision_failure': {
      const calls = wrongDecision(c);
      return calls ? renderToolCalls(asParsed(calls), family) : NO_TOOL_TEXT;
    }
    default:
      return c.expected ? renderToolCalls(asParsed(c.expected), family) : ABSTAIN_TEXT;
  }
}

/** The simulated server's parser: the strict parser of its template's family; what it cannot parse stays content. */
export function serverReply(text: string, family: Family, caseId: string): SimReply {
  const r = parseToolCalls(text, { tier: 'strict', format: family });
  if (r.calls.length === 0) return { content: text };
  return {
    content: null,
    tool_calls: r.calls.map((call, i) => ({
      id: `call_${hashString(`${caseId}|${i}`).toString(36)}`,
      type: 'function' as const,
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Methods: the simulated model's own names, and the case as it is presented

const STOP = new Set([
  'a',
  'an',
  'the',
  'of',
  'for',
  'to',
  'in',
  'on',
  'at',
  'by',
  'with',
  'and',
  'or',
  'it',
  'its',
  'is',
  'be',
  'get',
  'gets',
  'this',
  'that',
  'from',
  'as',
  'optionally',
  'followed',
  'given',
  'some',
  'one',
]);

/** The name this simulated model gives what a text describes: its first two content words, snake_case; null when none. */
export function simName(text: string): string | null {
  const words = (text.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !STOP.has(w) && w.length > 1);
  return words.length ? words.slice(0, 2).join('_') : null;
}

/** The answer to a method's naming prompt: the preferred name, or (sampled, 1 in 4) a near variant of it. */
export function namingAnswer(prompt: string, temperature: number, seed: number): string {
  const param = /It holds: (.*)/.exec(prompt)?.[1] ?? /currently called "([^"]+)"/.exec(prompt)?.[1];
  const what = param ?? /does(?: this)?: (.*)/.exec(prompt)?.[1] ?? prompt;
  const name = simName(what) ?? 'thing';
  if (temperature > 0 && new Rng(deriveSeed(seed, 'sim-name', prompt)).chance(0.25)) {
    const parts = name.split('_');
    return parts.length > 1 ? parts.reverse().join('_') : `${name}_value`;
  }
  return name;
}

/** original tool name → presented name, and each tool's original parameter → presented parameter. */
export interface PresentedView {
  tools: Record<string, string>;
  params: Record<string, Record<string, string>>;
}

const propsOf = (t: Pick<ToolSchema, 'parameters'> | undefined): string[] =>
  Object.keys(((t?.parameters as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as object);

/** Chat: the request's tools are the case's, in order, perhaps renamed — read the names position by position. */
export function viewFromTools(
  c: Pick<ProbeCase, 'tools'>,
  tools: readonly OpenAITool[] | undefined,
): PresentedView | null {
  if (!tools || tools.length !== c.tools.length) return null;
  const view: PresentedView = { tools: {}, params: {} };
  c.tools.forEach((t, i) => {
    const shown = tools[i]!.function;
    if (shown.name !== t.function.name) view.tools[t.function.name] = shown.name;
    const a = propsOf(t.function);
    const b = propsOf(shown);
    if (a.length !== b.length) return;
    const m: Record<string, string> = {};
    a.forEach((k, j) => {
      if (b[j] !== k) m[k] = b[j]!;
    });
    if (Object.keys(m).length) view.params[t.function.name] = m;
  });
  return Object.keys(view.tools).length || Object.keys(view.params).length ? view : null;
}

/** Completions: a tool whose own name is not quoted in the prompt but this model's name for it is, goes by that name. */
export function viewFromPrompt(c: Pick<ProbeCase, 'tools'>, prompt: string): PresentedView | null {
  const quoted = (n: string) => prompt.includes(`"${n}"`);
  const view: PresentedView = { tools: {}, params: {} };
  for (const t of c.tools) {
    const f = t.function;
    const pref = simName(f.description ?? f.name);
    if (!quoted(f.name) && pref && quoted(pref)) view.tools[f.name] = pref;
    const props = ((f.parameters as { properties?: Record<string, { description?: string }> } | undefined)
      ?.properties ?? {}) as Record<string, { description?: string }>;
    const m: Record<string, string> = {};
    for (const [k, s] of Object.entries(props)) {
      const pp = simName(s?.description ?? k);
      if (pp && pp !== k && !quoted(k) && quoted(pp)) m[k] = pp;
    }
    if (Object.keys(m).length) view.params[f.name] = m;
  }
  return Object.keys(view.tools).length || Object.keys(view.params).length ? view : null;
}

function renameCall<T extends { name: string; arguments: Record<string, unknown> }>(call: T, v: PresentedView): T {
  const pm = v.params[call.name] ?? {};
  return {
    ...call,
    name: v.tools[call.name] ?? call.name,
    arguments: Object.fromEntries(Object.entries(call.arguments).map(([k, x]) => [pm[k] ?? k, x])),
  };
}

/** The case as the model sees it: tools, prior calls and the calls it means under their presented names. */
export function presentCase(c: ProbeCase, v: PresentedView | null): ProbeCase {
  if (!v) return c;
  const tools = c.tools.map((t) => {
    const pm = v.params[t.function.name] ?? {};
    const p = t.function.parameters as { properties?: Record<string, unknown>; required?: string[] } | undefined;
    const parameters = p
      ? {
          ...p,
          ...(p.properties
            ? { properties: Object.fromEntries(Object.entries(p.properties).map(([k, x]) => [pm[k] ?? k, x])) }
            : {}),
          ...(p.required ? { required: p.required.map((k) => pm[k] ?? k) } : {}),
        }
      : undefined;
    return {
      ...t,
      function: {
        ...t.function,
        name: v.tools[t.function.name] ?? t.function.name,
        ...(parameters ? { parameters } : {}),
      },
    };
  });
  const messages = c.messages.map((m) => {
    if (m.role !== 'assistant' || !m.tool_calls?.length) return m;
    return {
      ...m,
      tool_calls: m.tool_calls.map((tc) => {
        let args: Record<string, unknown> = {};
        try {
          args = JSON.parse(tc.function.arguments) as Record<string, unknown>;
        } catch {
          return tc;
        }
        const r = renameCall({ name: tc.function.name, arguments: args }, v);
        return { ...tc, function: { name: r.name, arguments: JSON.stringify(r.arguments) } };
      }),
    };
  });
  return { ...c, tools, messages, expected: c.expected ? c.expected.map((e) => renameCall(e, v)) : null };
}

/** What the model meant to call under its behaviour (the simulator knows; the constrained decoder keeps it). */
export function intentOf(
  behaviour: Behaviour,
  c: ProbeCase,
): Array<{ name: string; arguments: Record<string, unknown> }> | null {
  if (behaviour === 'decision_failure') return wrongDecision(c);
  return c.expected ? asParsed(c.expected) : null;
}

// ---------------------------------------------------------------------------------------------------------
// The responder

export interface ProbeSimConfig {
  /** The case for an id (from the suite's case file). */
  lookup(id: string): ProbeCase | undefined;
  /** The configured chat template (`--template`): the model's own template and, for chat, the server's. */
  template: string | null;
  /** A lineup's per-model templates (by the model name requests carry), over `template`. */
  templates?: Record<string, string>;
}

const shapes = new Map<string, MessageShape>();
function shapeFor(source: string): MessageShape {
  let s = shapes.get(source);
  if (!s) shapes.set(source, (s = chooseShape(source).shape ?? SHAPES[0]!));
  return s;
}

export function serverTemplate(cfg: Pick<ProbeSimConfig, 'template'>, behaviour: Behaviour): string {
  if (cfg.template !== null) return cfg.template;
  if (behaviour === 'template_bug') return SIM_DROPPING_TEMPLATE;
  return referenceTemplate('hermes')!;
}

/** The policy's text through the constrained decoder the request asks for (unchanged without a constraint). */
function decode(
  text: string,
  body: Record<string, unknown>,
  family: Family,
  tools: ToolSchema[],
  behaviour: Behaviour,
  c: ProbeCase,
  spec: PolicySpec,
  trial: number,
): { text: string; cut: boolean } {
  const k = constraintOfRequest(body, family, tools);
  if (!k) return { text, cut: false };
  const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : null;
  const d = constrainedOutput(text, k, {
    key: `${c.id}|${trial}`,
    seed: spec.seed,
    intent: intentOf(behaviour, c),
    ...(maxTokens ? { maxChars: maxTokens * 4 } : {}),
  });
  return { text: d.text, cut: d.truncated };
}

export function createProbeResponder(cfg: ProbeSimConfig): Responder {
  const need = (id: string): ProbeCase => {
    const c = cfg.lookup(id);
    if (!c) throw new Error(`simulator: no probe case '${id}' in the suite's case file`);
    return c;
  };
  const templateOf = (model: string): string | null => cfg.templates?.[model] ?? cfg.template;
  const modelFamily = (model: string, prompt: string): Family => {
    const t = templateOf(model);
    return (t !== null ? detectFamily(t) : null) ?? familyOfTemplate(prompt) ?? 'hermes';
  };
  return {
    chat(spec: PolicySpec, body: ChatBody, ctx: SimRequestContext): SimReply {
      const raw = body as unknown as Record<string, unknown>;
      if (ctx.variant === 'pa_tool') {
        const last = body.messages.at(-1);
        const prompt = typeof last?.content === 'string' ? last.content : '';
        return {
          content: namingAnswer(
            prompt,
            typeof raw.temperature === 'number' ? raw.temperature : 0,
            (typeof raw.seed === 'number' ? raw.seed : 0) + spec.seed,
          ),
        };
      }
      const c = need(ctx.id);
      const behaviour = behaviourFor(spec, c.id, ctx.trial);
      const source = serverTemplate({ template: templateOf(body.model) }, behaviour);
      const family = detectFamily(source) ?? 'hermes';
      const pc = presentCase(c, viewFromTools(c, body.tools));
      const prompt = renderChat(source, {
        messages: applyShape(body.messages, shapeFor(source)),
        tools: body.tools,
        addGenerationPrompt: true,
      });
      const d = decode(
        modelOutput(behaviour, pc, prompt, family),
        raw,
        family,
        (body.tools ?? []).map((t) => t.function),
        behaviour,
        pc,
        spec,
        ctx.trial,
      );
      const reply = serverReply(d.text, family, c.id);
      return d.cut ? { ...reply, finish_reason: 'length' } : reply;
    },
    completion(
      spec: PolicySpec,
      prompt: string,
      ctx: SimRequestContext,
      body?: Record<string, unknown>,
    ): SimCompletion {
      const c = need(ctx.id);
      const behaviour = behaviourFor(spec, c.id, ctx.trial);
      const family = modelFamily(typeof body?.model === 'string' ? body.model : '', prompt);
      const pc = presentCase(c, viewFromPrompt(c, prompt));
      const text = modelOutput(behaviour, pc, prompt, family);
      if (!body) return text;
      const d = decode(
        text,
        body,
        family,
        pc.tools.map((t) => t.function),
        behaviour,
        pc,
        spec,
        ctx.trial,
      );
      return d.cut ? { text: d.text, finish_reason: 'length' } : d.text;
    },
  };
}

/**
 * The probe responder the simulator starts with (the suite registers it): the cases come from the same case file,
 * palette and date the suite uses, loaded on the first probe request.
 */
export function probeSimResponder(run: RunConfig, s: ProbeSettings): Responder {
  let state: { byId: Map<string, ProbeCase>; template: string | null; templates: Record<string, string> } | undefined;
  const load = () => {
    if (state) return state;
    const loaded = loadCases(s.casesFile, {
      ...(s.toolsFile ? { toolsFile: s.toolsFile } : {}),
      dateContext: run.injectedDate,
    });
    const byId = new Map(
      selectCases(loaded.cases, { split: 'all', only: undefined, categories: undefined }).map((c) => [
        headerId(c.id),
        c,
      ]),
    );
    const templates = Object.fromEntries(
      s.models.filter((m) => m.template).map((m) => [m.model, readFileSync(m.template!, 'utf8')]),
    );
    state = { byId, template: s.templateFile ? readFileSync(s.templateFile, 'utf8') : null, templates };
    return state;
  };
  const inner = () => {
    const st = load();
    return createProbeResponder({ lookup: (id) => st.byId.get(id), template: st.template, templates: st.templates });
  };
  let r: Responder | undefined;
  return {
    chat: (spec, body, ctx) => (r ??= inner()).chat!(spec, body, ctx),
    completion: (spec, prompt, ctx, body) => (r ??= inner()).completion!(spec, prompt, ctx, body),
  };
}
