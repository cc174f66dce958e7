// The simulated model for any describeEval: it plays a case from what the case declares (its expected tool calls
// and expected answer), registered by the run before the cases run (eval-cases.ts). Its own logic: the eval scorers
// are checked against it, so it shares nothing with them.
import type { ChatMessage, ToolCall } from '../core/chat.ts';
import { headerId } from '../core/ids.ts';
import { deriveSeed, Rng } from '../core/rng.ts';
import type { RegisteredCase } from './eval-cases.ts';
import type { PolicyName, PolicySpec } from './policy-spec.ts';
import { HttpError } from './http-error.ts';
import type { ChatBody, Responder, SimReply } from './server.ts';

/** The policies an eval case is played with (sim:flaky's faults are the server's; then it answers as oracle). */
export const EVAL_POLICIES = [
  'oracle',
  'wrong',
  'coin',
  'no_call',
  'wrong_arg',
  'flaky',
] as const satisfies readonly PolicyName[];

/** One tool call the simulated model makes. */
interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What the model does on a case under a policy: these calls, one a turn, then this answer. */
export interface EvalPlay {
  calls: PlannedCall[];
  answer: string;
}

/** The registered responder of one eval: chat replies, content identification, and whether it knows a header id. */
export interface EvalResponder extends Responder {
  knows(id: string): boolean;
}

export function evalResponder(name: string, cases: readonly RegisteredCase[]): EvalResponder {
  // Keyed as the request header carries an id (core/ids.ts).
  const byId = new Map<string, RegisteredCase>();
  const byInput = new Map<string, string>();
  for (const c of cases) {
    const key = headerId(c.id);
    if (!byId.has(key)) byId.set(key, c);
    const text = c.input === undefined ? undefined : firstUserKey(inputMessages(c.input));
    if (text !== undefined && !byInput.has(text)) byInput.set(text, key);
  }
  return {
    knows: (id) => byId.has(id),
    identify: (body: ChatBody) => {
      const text = firstUserKey(body.messages);
      return text === undefined ? undefined : byInput.get(text);
    },
    chat(spec, body, ctx): SimReply {
      const c = byId.get(ctx.id);
      if (!c) throw new HttpError(422, `simulator: eval '${name}' has no case '${ctx.id}'`);
      if (!(EVAL_POLICIES as readonly string[]).includes(spec.name))
        throw new HttpError(
          422,
          `simulator: eval '${name}' is played with sim:${EVAL_POLICIES.join(', sim:')}; not sim:${spec.name}`,
        );
      return evalReply(evalPlay(spec, c, { eval: name, trial: ctx.trial }), body.messages, c);
    },
  };
}

/** The whole play of a case under a policy; seeded by the policy's seed, the eval, the case and the trial. */
export function evalPlay(spec: PolicySpec, c: RegisteredCase, at: { eval: string; trial: number }): EvalPlay {
  const calls = (c.expectedTools ?? []).map((t) => ({ name: t.name, arguments: { ...t.arguments } }));
  const right = answerText(c.expected);
  switch (spec.name) {
    case 'oracle':
    case 'flaky':
      return { calls, answer: right };
    case 'wrong':
      return { calls, answer: wrongAnswer(c.expected) };
    case 'no_call':
      return { calls: [], answer: right };
    case 'wrong_arg':
      return { calls: withOneArgumentChanged(calls), answer: right };
    case 'coin': {
      const win = new Rng(deriveSeed(spec.seed, 'eval-coin', at.eval, c.id, at.trial)).chance(spec.p);
      return { calls: spec.coinTools === 'none' ? [] : calls, answer: win ? right : wrongAnswer(c.expected) };
    }
    default:
      throw new HttpError(422, `simulator: no eval play for sim:${spec.name}`);
  }
}

/**
 * The next assistant message: the next planned call (progress is the tool results the conversation holds beyond
 * the case's own input), else the answer in `<answer>` tags.
 */
export function evalReply(play: EvalPlay, messages: readonly ChatMessage[], c: RegisteredCase): SimReply {
  const before = c.input === undefined ? 0 : toolResults(inputMessages(c.input));
  const done = Math.max(0, toolResults(messages) - before);
  const next = play.calls[done];
  if (next) {
    const call: ToolCall = {
      id: `call_${done}`,
      type: 'function',
      function: { name: next.name, arguments: JSON.stringify(next.arguments) },
    };
    return { content: null, tool_calls: [call] };
  }
  return { content: `<answer>${play.answer}</answer>` };
}

/** The expected answer as text: a string as it is, any other value as JSON; nothing expected, nothing said. */
export function answerText(expected: unknown): string {
  if (expected === undefined) return '';
  return typeof expected === 'string' ? expected : JSON.stringify(expected);
}

/** A value that is not the expected one: a number one more, a boolean negated, anything else a refusal. */
export function wrongAnswer(expected: unknown): string {
  if (typeof expected === 'number' && Number.isFinite(expected)) return String(expected + 1);
  if (typeof expected === 'boolean') return String(!expected);
  if (typeof expected === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(expected)) return String(Number(expected) + 1);
  return typeof expected === 'string' && expected.trim().toLowerCase() === NO_ANSWER ? 'another answer' : NO_ANSWER;
}
const NO_ANSWER = 'no answer';

/**
 * The calls with one argument changed: the last argument of the first call that has any (a number one more, a
 * boolean negated, anything else a string no case expects); with no arguments anywhere, the first call gets an
 * unexpected one.
 */
export function withOneArgumentChanged(calls: readonly PlannedCall[]): PlannedCall[] {
  const out = calls.map((c) => ({ name: c.name, arguments: { ...c.arguments } }));
  const target = out.find((c) => Object.keys(c.arguments).length > 0);
  if (target) {
    const key = Object.keys(target.arguments).at(-1)!;
    const v = target.arguments[key];
    target.arguments[key] =
      typeof v === 'number' ? v + 1 : typeof v === 'boolean' ? !v : v === CHANGED ? `${CHANGED} 2` : CHANGED;
  } else if (out[0]) out[0].arguments = { unexpected_argument: CHANGED };
  return out;
}
const CHANGED = 'WRONG VALUE 9';

function inputMessages(input: NonNullable<RegisteredCase['input']>): readonly { role: string; content?: unknown }[] {
  return typeof input === 'string' ? [{ role: 'user', content: input }] : input;
}

function toolResults(messages: readonly { role: string }[]): number {
  return messages.filter((m) => m.role === 'tool').length;
}

/** The first user message's content as a lookup key (text as itself, structured content as JSON). */
function firstUserKey(messages: readonly { role: string; content?: unknown }[]): string | undefined {
  const m = messages.find((x) => x.role === 'user');
  if (!m) return undefined;
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null);
}
