// The simulator's judge for describeEval's judged scorers (planted behaviour, never a model's result). It reads only
// the judge prompt's sections — <reference_answer> and <candidate_answer> — and applies a rule of its own, written
// here without the scorer's code: pass iff the candidate's words contain the reference's words in order (after its
// own normalisation: case, accents' compatibility forms, punctuation, `1,000`, `42.0`); with no reference section,
// pass iff the candidate says anything. Under `sim:judge`, `disagree=r` flips a seeded share r of the verdicts and
// `invalid=r` answers a share r with no verdict at all; both draws are seeded by the prompt and the policy's seed.
// Every other policy judges by the rule alone.

import { deriveSeed, hashString, Rng } from '../core/rng.ts';
import type { PolicySpec } from './policy-spec.ts';

/** The instance prefix of judge requests (`x-toolgauge-instance: _judge:<eval>:<case>`): no eval's name starts so. */
export const EVAL_JUDGE_ROUTE = '_judge';

/** The text of a section of the prompt, or undefined when it has none. */
function section(prompt: string, name: string): string | undefined {
  const open = `<${name}>`;
  const i = prompt.indexOf(open);
  if (i < 0) return undefined;
  const j = prompt.lastIndexOf(`</${name}>`);
  return j < i ? undefined : prompt.slice(i + open.length, j).trim();
}

/** Words and numbers, lower-cased, thousands separators and trailing decimal zeros dropped. */
export function simWords(text: string): string[] {
  const t = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1');
  return (t.match(/\d+(?:\.\d+)?|[\p{L}\p{N}]+/gu) ?? []).map((w) =>
    /^\d+\.\d+$/.test(w) ? w.replace(/\.?0+$/, '') : w,
  );
}

function containsRun(hay: readonly string[], needle: readonly string[]): boolean {
  if (!needle.length) return false;
  for (let i = 0; i + needle.length <= hay.length; i++) if (needle.every((w, k) => hay[i + k] === w)) return true;
  return false;
}

/** The rule's verdict on one prompt; undefined when the text is not a judge prompt (no candidate answer). */
export function simEvalVerdict(prompt: string): { pass: boolean; reason: string } | undefined {
  const candidate = section(prompt, 'candidate_answer');
  if (candidate === undefined) return undefined;
  const reference = section(prompt, 'reference_answer');
  const got = simWords(candidate);
  if (reference === undefined)
    return { pass: got.length > 0, reason: got.length ? 'the answer says something' : 'the answer is empty' };
  const want = simWords(reference);
  const pass = containsRun(got, want);
  return {
    pass,
    reason: pass ? 'the answer states the reference answer' : 'the answer does not state the reference answer',
  };
}

/** The judge's reply to one chat request; undefined when the request holds no judge prompt. */
export function simEvalJudgeReply(
  spec: PolicySpec,
  messages: ReadonlyArray<{ role: string; content?: unknown }>,
): string | undefined {
  const prompt = messages
    .filter((m) => m.role === 'user' && typeof m.content === 'string')
    .map((m) => m.content as string)
    .join('\n');
  const v = simEvalVerdict(prompt);
  if (!v) return undefined;
  const opts = spec.name === 'judge' && spec.judge ? spec.judge : { disagree: 0, invalid: 0 };
  const rng = new Rng(deriveSeed(spec.seed, 'sim-eval-judge', hashString(prompt)));
  const invalid = rng.chance(opts.invalid);
  const flip = rng.chance(opts.disagree);
  if (invalid) return 'The candidate answer looks reasonable to me overall.';
  const pass = flip ? !v.pass : v.pass;
  const reason = flip ? `${v.reason} (sim:judge planted a disagreement)` : v.reason;
  return `Comparing the candidate with the reference.\n\`\`\`json\n${JSON.stringify({ verdict: pass ? 'pass' : 'fail', reason })}\n\`\`\``;
}
