// The simulated model on BFCL cases — a calibration fixture, not a model. `sim:oracle` answers from the answer key
// (the possible answers; for multi-turn the ground-truth calls of the current turn, then a closing text), in FC
// mode as tool_calls and in prompt mode as BFCL's `[func(a=1)]` text. Fault policies plant one known failure:
// `decision_failure` (a wrong argument value; a call where none is wanted; no call where one is), `format_failure`
// (a call attempt nothing can read), `parser_gap` (the right call in a form BFCL's decoder refuses but a lenient
// parser reads: a ```python fence in prompt mode, Hermes text in FC mode). The pure functions below decide; the
// Responder adapter only finds the case (by the request's instance id) and the turn and step (from the messages).
import type { ChatMessage, ToolCall } from '../core/chat.ts';
import type { PyValue } from '../core/pyliteral/index.ts';
import { deriveSeed, Rng } from '../core/rng.ts';
import type { PolicySpec } from '../sim/policy-spec.ts';
import type { ChatBody, Responder, SimRequestContext } from '../sim/server.ts';
import type { SimReply } from '../sim/server.ts';
import { checkKindOf, isIrrelevance } from './categories.ts';
import type { FunctionDoc, ParamDoc } from './checker/ast.ts';
import type { BfclCase } from './data.ts';
import { stepResponse } from './loop.ts';
import {
  argumentsJson,
  fcName,
  goldCallsOf,
  parseCallString,
  renderHermes,
  renderPythonic,
  type GoldCall,
} from './render.ts';

export type BfclMode = 'fc' | 'prompt';
export type Behaviour = 'oracle' | 'decision_failure' | 'format_failure' | 'parser_gap';

export const ABSTAIN_TEXT = 'None of the functions I have can do this, so I will not call any.';
export const TURN_DONE_TEXT = 'Done: that is everything for this request.';
export const ASK_TEXT = 'I need more information to do that: could you give me the missing details?';

export interface ResponderOptions {
  mode: BfclMode;
  /** FC tool names with dots replaced by underscores (OpenAI-compatible endpoints refuse dots). */
  underscores?: boolean;
}

/** Which behaviour a policy plants on a case (coin: oracle with probability p, seeded per case and trial). */
export function behaviourFor(
  spec: Pick<PolicySpec, 'name' | 'cause' | 'p' | 'seed'>,
  caseId: string,
  trial: number,
): Behaviour {
  switch (spec.name) {
    case 'fault':
      return spec.cause === 'template_bug' || !spec.cause ? 'oracle' : spec.cause;
    case 'wrong':
      return 'decision_failure';
    case 'coin':
      return new Rng(deriveSeed(spec.seed, 'bfcl-coin', caseId, trial)).chance(spec.p) ? 'oracle' : 'decision_failure';
    default:
      return 'oracle';
  }
}

// ---------------------------------------------------------------------------------------------------------
// what to answer

/** A call for live_relevance (no answer key): the first function with its required parameters filled in. */
export function plausibleCall(docs: readonly FunctionDoc[]): GoldCall[] {
  const doc = docs[0];
  if (!doc) return [];
  const props = doc.parameters.properties;
  const args: Array<[string, PyValue]> = (doc.parameters.required ?? []).map((p) => [p, placeholder(props[p])]);
  return [{ name: doc.name, args }];
}

function placeholder(p: ParamDoc | undefined): PyValue {
  const enumValues = (p as { enum?: unknown[] } | undefined)?.enum;
  if (Array.isArray(enumValues) && typeof enumValues[0] === 'string') return { t: 'str', v: enumValues[0] };
  switch (p?.type) {
    case 'integer':
      return { t: 'int', v: 1n };
    case 'float':
    case 'number':
      return { t: 'float', v: 1 };
    case 'boolean':
      return { t: 'bool', v: true };
    case 'array':
    case 'tuple':
      return { t: 'list', items: [] };
    case 'dict':
      return { t: 'dict', entries: [] };
    default:
      return { t: 'str', v: 'example' };
  }
}

/** The same calls with one argument value changed (or, with no arguments, another function's name). */
export function wrongCalls(calls: readonly GoldCall[], docs: readonly FunctionDoc[]): GoldCall[] {
  const first = calls[0];
  if (!first) return plausibleCall(docs);
  if (first.args.length === 0) {
    const other = docs.find((d) => d.name !== first.name);
    return [{ name: other ? other.name : `${first.name}_x`, args: [] }, ...calls.slice(1)];
  }
  const [k, v] = first.args[0]!;
  return [{ name: first.name, args: [[k, perturb(v)], ...first.args.slice(1)] }, ...calls.slice(1)];
}

function perturb(v: PyValue): PyValue {
  switch (v.t) {
    case 'int':
      return { t: 'int', v: v.v + 7n };
    case 'float':
      return { t: 'float', v: v.v + 7.5 };
    case 'bool':
      return { t: 'bool', v: !v.v };
    case 'str':
      return { t: 'str', v: `${v.v} (other)` };
    case 'list':
      return { t: 'list', items: [...v.items, { t: 'str', v: 'extra' }] };
    default:
      return { t: 'str', v: 'wrong' };
  }
}

export interface PlannedOutput {
  /** Calls to make (empty: answer in text). */
  calls: GoldCall[];
  /** Text when there are no calls. */
  text: string;
}

/** The oracle's plan for one request: which calls (or text) the model should produce. */
export function oraclePlan(c: BfclCase, turn: number, step: number): PlannedOutput {
  const kind = checkKindOf(c.category);
  if (kind === 'relevance') {
    if (isIrrelevance(c.category)) return { calls: [], text: ABSTAIN_TEXT };
    return step === 0 ? { calls: plausibleCall(c.entry.functions), text: '' } : { calls: [], text: TURN_DONE_TEXT };
  }
  if (kind === 'ast') return step === 0 ? { calls: goldCallsOf(c), text: '' } : { calls: [], text: TURN_DONE_TEXT };
  const gt = c.groundTruth?.[turn] ?? [];
  if (gt.length === 0) return { calls: [], text: ASK_TEXT };
  if (step > 0) return { calls: [], text: TURN_DONE_TEXT };
  const docs = [...c.entry.functions, ...Object.values(c.entry.missedFunctions ?? {}).flat()];
  return { calls: gt.map((s) => parseCallString(s, docs)), text: '' };
}

/** The plan under a behaviour. */
export function plannedOutput(
  c: BfclCase,
  behaviour: Behaviour,
  turn: number,
  step: number,
): PlannedOutput & { garble?: 'format' | 'fence' } {
  const plan = oraclePlan(c, turn, step);
  if (behaviour === 'oracle') return plan;
  if (behaviour === 'decision_failure') {
    if (plan.calls.length === 0) {
      // A call where none is wanted (irrelevance, or a turn that should ask back); a closing step stays closed.
      return step === 0 ? { calls: plausibleCall(c.entry.functions), text: '' } : plan;
    }
    return { calls: wrongCalls(plan.calls, c.entry.functions), text: '' };
  }
  if (plan.calls.length === 0) return plan;
  return { ...plan, garble: behaviour === 'format_failure' ? 'format' : 'fence' };
}

let callCounter = 0;

/** The assistant message for a plan in FC or prompt mode. */
export function renderReply(out: ReturnType<typeof plannedOutput>, opts: ResponderOptions, caseId: string): SimReply {
  if (out.calls.length === 0) return { content: out.text };
  const pythonic = renderPythonic(out.calls);
  if (out.garble === 'format') {
    // The call begins but never closes its argument list: nothing can read it.
    const text = pythonic.slice(0, Math.max(2, pythonic.indexOf('(') + 1));
    return {
      content:
        opts.mode === 'fc' ? `<tool_call>\n{"name": ${JSON.stringify(out.calls[0]!.name)}, "arguments": {` : `${text}`,
    };
  }
  if (out.garble === 'fence') {
    return { content: opts.mode === 'fc' ? renderHermes(out.calls) : `\`\`\`python\n${pythonic}\n\`\`\`` };
  }
  if (opts.mode === 'prompt') return { content: pythonic };
  const tool_calls: ToolCall[] = out.calls.map((call, i) => ({
    id: `call_${caseId.replace(/[^A-Za-z0-9]/g, '')}_${i}_${(callCounter++).toString(36)}`,
    type: 'function',
    function: { name: fcName(call.name, opts.underscores ?? false), arguments: argumentsJson(call.args) },
  }));
  return { content: null, tool_calls };
}

// ---------------------------------------------------------------------------------------------------------
// reading the conversation

/**
 * Turn = user messages so far − 1 (BFCL sends one user message per turn, the holdout turn included); step =
 * assistant messages since. In prompt mode BFCL returns execution results as a user message holding the repr of
 * `[{'role': 'tool', …}]`: that continues the turn.
 */
export function turnAndStep(messages: readonly ChatMessage[]): { turn: number; step: number } {
  let users = 0;
  let step = 0;
  for (const m of messages) {
    if (m.role === 'user' && !(typeof m.content === 'string' && m.content.startsWith("[{'role': 'tool'"))) {
      users++;
      step = 0;
    } else if (m.role === 'assistant') step++;
  }
  return { turn: Math.max(0, users - 1), step };
}

export interface BfclSimConfig extends ResponderOptions {
  lookup: (id: string) => BfclCase | undefined;
}

/** The simulator's BFCL responder: `ctx.id` names the case (the suite sends it), the messages give turn and step. */
export function createBfclResponder(cfg: BfclSimConfig): Responder {
  const need = (id: string): BfclCase => {
    const key = id.startsWith('bfcl:') ? id.slice(5) : id;
    const c = cfg.lookup(key);
    if (!c) throw new Error(`simulator: no BFCL case '${key}' in the loaded data`);
    return c;
  };
  return {
    chat(spec: PolicySpec, body: ChatBody, ctx: SimRequestContext): SimReply {
      const c = need(ctx.id);
      const { turn, step } = turnAndStep(body.messages);
      return renderReply(plannedOutput(c, behaviourFor(spec, c.id, ctx.trial), turn, step), cfg, c.id);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// a whole result, as BFCL's result files hold it

export type ResultStyle = 'fc' | 'pythonic' | 'hermes';

/**
 * The `result` field BFCL would write for this case if the model followed `behaviour`: single-turn, one step;
 * multi-turn, per turn the steps until the model stops calling (a text reply ends the turn, as BFCL's loop does).
 */
export function simulatedResult(
  c: BfclCase,
  style: ResultStyle,
  behaviour: Behaviour = 'oracle',
  opts: { underscores?: boolean } = {},
): PyValue {
  const mode: BfclMode = style === 'fc' ? 'fc' : 'prompt';
  const reply = (turn: number, step: number): SimReply => {
    const out = plannedOutput(c, behaviour, turn, step);
    if (style === 'hermes' && out.calls.length && !out.garble) return { content: renderHermes(out.calls) };
    return renderReply(out, { mode, underscores: opts.underscores }, c.id);
  };
  if (checkKindOf(c.category) !== 'multi_turn') return stepResponse(reply(0, 0), mode);
  const turns: PyValue[] = [];
  for (let turn = 0; turn < (c.groundTruth?.length ?? 0); turn++) {
    const steps: PyValue[] = [];
    for (let step = 0; step < 20; step++) {
      const r = reply(turn, step);
      steps.push(stepResponse(r, mode));
      if (!r.tool_calls?.length && plannedOutput(c, behaviour, turn, step).calls.length === 0) break;
    }
    turns.push({ t: 'list', items: steps });
  }
  return { t: 'list', items: turns };
}
