import { hashString } from '../core/rng.ts';
import type { PolicySpec, TraitKind } from '../sim/policy-spec.ts';
import { HttpError, type Responder } from '../sim/server.ts';
import type { ToolhopRow } from '../toolhop/row.ts';
import { carriesTrait, traitInstruction, traitValue } from '../toolhop/sim-trait.ts';
import { CURRENT_CLOSE, CURRENT_OPEN, EXAMPLE_HEADER } from './reflection.ts';

/**
 * `sim:reflect`, the calibration fixture's reflection model (a fixture, never a model result). It reads the
 * optimizer's reflection prompt as a language model would read it — the current instruction, and which examples
 * went wrong — recognises each wrong example's row by its question (the simulator holds the rows, as it does for
 * the task policies), and adds an instruction about that row's hidden trait (`traitInstruction`, the phrase
 * `sim:trait` rewards) for the most frequent traits not yet covered, at most `max` per answer. Without wrong
 * examples it can only reword: it adds a generic tip that `sim:trait` ignores. Its requests reach the simulator
 * under the suite key REFLECT_SUITE (`x-toolgauge-instance: optimize-reflect:<call>`).
 */
export const REFLECT_SUITE = 'optimize-reflect';

const GENERIC_TIPS = [
  '- Double-check every intermediate value before passing it on.',
  '- Read each tool description carefully before calling it.',
  '- Keep the reasoning short and finish with the final value.',
  '- If a tool call fails, fix the arguments and call it again.',
];

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

export interface ExampleSeen {
  n: number;
  wrong: boolean;
  question: string;
}

/** The examples of a reflection prompt: number, verdict and question of each `### Example` block. */
export function examplesOf(prompt: string): ExampleSeen[] {
  const heads = [...prompt.matchAll(EXAMPLE_HEADER)];
  return heads.map((h, i) => {
    const body = prompt.slice(h.index! + h[0].length, heads[i + 1]?.index ?? prompt.length);
    const q = /^Question: (.*)$/m.exec(body);
    return { n: Number(h[1]), wrong: h[2] === 'wrong', question: q ? q[1]!.trim() : '' };
  });
}

/** The current instruction of a reflection prompt (between the markers), or ''. */
export function currentOf(prompt: string): string {
  const a = prompt.indexOf(CURRENT_OPEN);
  const b = prompt.indexOf(CURRENT_CLOSE, a + CURRENT_OPEN.length);
  return a >= 0 && b > a ? prompt.slice(a + CURRENT_OPEN.length, b).trim() : '';
}

/** sim:reflect's answer to one reflection prompt. Pure. */
export function reflectAnswer(
  spec: PolicySpec,
  prompt: string,
  rowOf: (question: string) => ToolhopRow | undefined,
): string {
  const kind: TraitKind = spec.trait?.kind ?? 'answer_type';
  const max = spec.trait?.maxNew || 2;
  const current = currentOf(prompt);
  const counts = new Map<string, { n: number; first: number; row: ToolhopRow }>();
  examplesOf(prompt).forEach((e, i) => {
    if (!e.wrong) return;
    const row = rowOf(e.question);
    if (!row) return;
    const value = traitValue(row, kind);
    if (!value || carriesTrait(current, kind, value)) return;
    const c = counts.get(value);
    counts.set(value, { n: (c?.n ?? 0) + 1, first: c?.first ?? i, row: c?.row ?? row });
  });
  const picked = [...counts].sort((a, b) => b[1].n - a[1].n || a[1].first - b[1].first).slice(0, max);
  let added = picked.map(([value, c]) => traitInstruction(kind, value, c.row));
  if (!added.length) {
    // Nothing to learn from: reword with a tip the current instruction does not have yet (or change nothing).
    const start = hashString(`${spec.seed}|${current}`) % GENERIC_TIPS.length;
    const tip = [...GENERIC_TIPS.slice(start), ...GENERIC_TIPS.slice(0, start)].find(
      (t) => !norm(current).includes(norm(t)),
    );
    added = tip ? [tip] : [];
  }
  const body = [current, ...added].filter(Boolean).join('\n');
  return `I looked at the examples and rewrote the instruction.\n<instruction>\n${body}\n</instruction>`;
}

/** The simulator's responder for reflection requests, over the rows of the optimization's data. */
export function reflectResponder(rows: () => readonly ToolhopRow[] | Promise<readonly ToolhopRow[]>): Responder {
  let table: Promise<Map<string, ToolhopRow>> | undefined;
  const lookup = () => (table ??= Promise.resolve(rows()).then((rs) => new Map(rs.map((r) => [norm(r.question), r]))));
  return {
    async chat(spec, body) {
      if (spec.name !== 'reflect')
        throw new HttpError(
          422,
          `simulator: sim:${spec.name} has no reflection behaviour (use sim:reflect as the reflection model)`,
        );
      const t = await lookup();
      const prompt = body.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
      return { content: reflectAnswer(spec, prompt, (q) => t.get(norm(q))) };
    },
  };
}
