import type { ChatMessage } from '../core/chat.ts';
import { deriveSeed, Rng } from '../core/rng.ts';
import type { PolicySpec, TraitKind } from '../sim/policy-spec.ts';
import type { SimCallContext } from '../sim/server.ts';
import type { ToolhopRow } from './row.ts';

/**
 * A calibration fixture for prompt optimizers, not a model: `sim:trait` solves a ToolHop row with probability `hi`
 * when the requesting role's system prompt carries an instruction about the row's hidden trait (its answer type,
 * previous answer type, domain, or — for a trait unique to each row — its whole question), and with
 * probability `lo` otherwise. Its reflection-model partner `sim:reflect` turns feedback about failing rows into
 * exactly such instructions (harness/optimize/sim-reflect.ts). An optimizer that works finds them; one that never
 * reflects, accepts the wrong children, or trains on its validation rows does not gain on rows it never saw.
 *
 * One uniform draw per instance, agent and trial decides both cases (solved iff u < lo or u < hi), so adding an
 * instruction never turns a solved row into a failed one and a paired comparison sees only the instruction's
 * effect. The trait is read from the row the simulator holds, never from the request.
 */

const LABEL: Record<TraitKind, string> = {
  answer_type: 'the answer type is',
  previous_answer_type: 'the previous answer type is',
  domain: 'the domain is',
  question: 'the question is',
};

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** The row's value of a trait, normalised (lowercase, single spaces). */
export function traitValue(
  row: Pick<ToolhopRow, 'question' | 'answer_type' | 'previous_answer_type' | 'domain'>,
  kind: TraitKind,
): string {
  // The whole question: ToolHop's questions share long templated beginnings, so no prefix is unique to a row.
  return norm(String(row[kind] ?? ''));
}

/** The phrase that makes a prompt "carry an instruction" about a trait value. */
function needle(kind: TraitKind, value: string): string {
  return `${LABEL[kind]} "${value}"`;
}

/** Whether a prompt carries an instruction about this trait value (case and spacing do not matter). */
export function carriesTrait(prompt: string, kind: TraitKind, value: string): boolean {
  return value !== '' && norm(prompt).includes(norm(needle(kind, value)));
}

/**
 * The instruction line `sim:reflect` writes for a trait value: general advice for trait traits, a memorised answer
 * for the `question` trait (what a reflection model that copies gold answers from its feedback would write).
 */
export function traitInstruction(kind: TraitKind, value: string, row?: Pick<ToolhopRow, 'answer'>): string {
  const advice =
    kind === 'question'
      ? `answer "${row?.answer ?? ''}".`
      : `call every hop's tool in order, pass each returned value on exactly, and give the final ${value} value exactly as the last tool returned it.`;
  return `- When ${needle(kind, value)}: ${advice}`;
}

/** The system prompt of a request (empty when it has none). */
export function systemOf(messages: readonly ChatMessage[]): string {
  const first = messages[0];
  return first?.role === 'system' ? String(first.content ?? '') : '';
}

/** Whether `sim:trait` solves this request's row: one seeded draw per instance, agent and trial. */
export function traitWins(spec: PolicySpec, row: ToolhopRow, system: string, ctx: SimCallContext): boolean {
  const t = spec.trait ?? { kind: 'answer_type' as const, lo: 0.2, hi: 0.9, maxNew: 0 };
  const u = new Rng(deriveSeed(spec.seed, ctx.instance, ctx.agent, ctx.trial, 'trait')).next();
  return u < (carriesTrait(system, t.kind, traitValue(row, t.kind)) ? t.hi : t.lo);
}
