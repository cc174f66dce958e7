import { readFileSync } from 'node:fs';
import { headerId } from '../core/ids.ts';
import { fromRoot } from '../core/paths.ts';
import type { ChatMessage as CoreMessage, OpenAITool } from '../core/chat.ts';
import type { RunConfig } from '../core/config.ts';
import { jsonToPy, pyRepr } from '../core/pyliteral/index.ts';
import { deriveSeed, hashString, Rng } from '../core/rng.ts';
import type { PolicySpec } from '../sim/policy-spec.ts';
import type { ChatBody, Responder, SimRequestContext } from '../sim/server.ts';
import type { SimReply } from '../sim/server.ts';
import { loadCases } from './cases/load.ts';
import { priorCalls, type ExpectedCall, type ProbeCase } from './cases/types.ts';
import { familyOfTemplate, parseToolCalls, renderToolCalls, type Family } from '../parse/index.ts';
import { selectCases, type ProbeSettings } from './run/env.ts';
import { applyShape, chooseShape, referenceTemplate, renderChat, SHAPES, type MessageShape } from './templates/index.ts';

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

export const CONFUSED_TEXT = "I'm not sure what you are referring to, I can't see that earlier request. Could you give me the details again?";
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
export function faultAffects(c: Pick<ProbeCase, 'expected' | 'messages'>, cause: Exclude<Behaviour, 'oracle'>): boolean {
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
      for (const p of priorCalls({ messages: [m] })) if (!callVisible(region, p.name, p.arguments)) missingCalls.push(p.name);
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
  if (v && typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k} ${flat(x)}`).join(' and ');
  return String(v);
}

/** A call attempt with the family's markers that no parser can recover: no JSON, no call syntax. */
export function garbled(calls: readonly ExpectedCall[]): string {
  return calls
    .map((c) => `<tool_call>\nname=${c.name}; arguments: ${Object.entries(c.arguments).map(([k, v]) => `${k} -> ${flat(v)}`).join(', ')}\n</tool_call>`)
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
  const params = tool.function.parameters as { properties?: Record<string, { type?: string }>; required?: string[] } | undefined;
  const out: Record<string, unknown> = {};
  for (const k of params?.required ?? []) {
    const t = params?.properties?.[k]?.type;
    out[k] = t === 'number' || t === 'integer' ? 1 : t === 'boolean' ? true : t === 'array' ? [] : t === 'object' ? {} : 'something';
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
    tool_calls: r.calls.map((call, i) => ({ id: `call_${hashString(`${caseId}|${i}`).toString(36)}`, type: 'function' as const, function: { name: call.name, arguments: JSON.stringify(call.arguments) } })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The responder

export interface ProbeSimConfig {
  /** The case for an id (from the suite's case file). */
  lookup(id: string): ProbeCase | undefined;
  /** The configured chat template (`--template`): the model's own template and, for chat, the server's. */
  template: string | null;
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

export function createProbeResponder(cfg: ProbeSimConfig): Responder {
  const need = (id: string): ProbeCase => {
    const c = cfg.lookup(id);
    if (!c) throw new Error(`simulator: no probe case '${id}' in the suite's case file`);
    return c;
  };
  const modelFamily = (prompt: string): Family => familyOfTemplate(cfg.template ?? '') ?? familyOfTemplate(prompt) ?? 'hermes';
  return {
    chat(spec: PolicySpec, body: ChatBody, ctx: SimRequestContext): SimReply {
      const c = need(ctx.id);
      const behaviour = behaviourFor(spec, c.id, ctx.trial);
      const source = serverTemplate(cfg, behaviour);
      const family = familyOfTemplate(source) ?? 'hermes';
      const prompt = renderChat(source, { messages: applyShape(body.messages, shapeFor(source)), tools: body.tools, addGenerationPrompt: true });
      return serverReply(modelOutput(behaviour, c, prompt, family), family, c.id);
    },
    completion(spec: PolicySpec, prompt: string, ctx: SimRequestContext): string {
      const c = need(ctx.id);
      return modelOutput(behaviourFor(spec, c.id, ctx.trial), c, prompt, modelFamily(prompt));
    },
  };
}

/**
 * The probe responder the simulator starts with (the suite registers it): the cases come from the same case file,
 * palette and date the suite uses, loaded on the first probe request.
 */
export function probeSimResponder(run: RunConfig, s: ProbeSettings): Responder {
  let state: { byId: Map<string, ProbeCase>; template: string | null } | undefined;
  const load = () => {
    if (state) return state;
    const loaded = loadCases(s.casesFile, { ...(s.toolsFile ? { toolsFile: s.toolsFile } : {}), dateContext: run.injectedDate });
    const byId = new Map(selectCases(loaded.cases, { split: 'all', only: undefined, categories: undefined }).map((c) => [headerId(c.id), c]));
    state = { byId, template: s.templateFile ? readFileSync(s.templateFile, 'utf8') : null };
    return state;
  };
  const inner = () => {
    const st = load();
    return createProbeResponder({ lookup: (id) => st.byId.get(id), template: st.template });
  };
  let r: Responder | undefined;
  return {
    chat: (spec, body, ctx) => (r ??= inner()).chat!(spec, body, ctx),
    completion: (spec, prompt, ctx) => (r ??= inner()).completion!(spec, prompt, ctx),
  };
}
