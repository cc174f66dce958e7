// A judge model's verdict, read from its reply. Pure: the request is in judge.ts. The reply is untrusted text (any
// endpoint, any model): it either holds one JSON verdict object, or it is a judge error naming what is wrong —
// never a pass or a fail read into something else.

import { z } from 'zod';

/** The longest reason kept from a reply (it reaches report.md and the terminal as a failure reason). */
export const REASON_CAP = 500;

/**
 * What a judge must answer: `{"verdict": "pass"|"fail", "score"?: number in [0, 1], "reason": string}`. The
 * verdict's case is not significant; the reason is kept on one line, cut at REASON_CAP characters.
 */
export const JudgeVerdictSchema = z.object({
  verdict: z.preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['pass', 'fail'])),
  score: z.number().min(0).max(1).optional(),
  reason: z.string().transform((s) => oneLine(s, REASON_CAP)),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdictSchema>;

export type ParsedJudgeReply = { ok: true; verdict: JudgeVerdict; score: number } | { ok: false; error: string };

/**
 * Read a judge's reply: the whole reply when it is one JSON object, else the last fenced block (```json or ```),
 * else the text from the first `{` to the last `}`. The score is the reply's `score` when it gives one, else 1 for
 * `pass` and 0 for `fail`. Anything else — an empty reply, no object, invalid JSON, a missing or wrong field — is an
 * error naming what is wrong. Never throws.
 */
export function parseJudgeReply(reply: string | null | undefined): ParsedJudgeReply {
  const text = (reply ?? '').trim();
  if (!text) return { ok: false, error: 'the judge gave an empty reply' };
  const raw = candidates(text);
  if (!raw.length) return { ok: false, error: `no JSON verdict in the judge's reply: ${quote(text)}` };
  let last = '';
  for (const c of raw) {
    let json: unknown;
    try {
      json = JSON.parse(c);
    } catch (err) {
      last = `the judge's verdict is not JSON (${(err as Error).message.split('\n')[0]}): ${quote(c)}`;
      continue;
    }
    const r = JudgeVerdictSchema.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      last = `the judge's verdict: ${issue.path.join('.') || '(root)'}: ${issue.message}`;
      continue;
    }
    return { ok: true, verdict: r.data, score: r.data.score ?? (r.data.verdict === 'pass' ? 1 : 0) };
  }
  return { ok: false, error: last };
}

/** The texts that may hold the verdict object, in the order they are tried. */
function candidates(text: string): string[] {
  const out: string[] = [];
  if (text.startsWith('{')) out.push(text);
  const fences = [...text.matchAll(/```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)```/g)];
  const fence = fences.at(-1)?.[1]?.trim();
  if (fence) out.push(fence);
  const i = text.indexOf('{');
  const j = text.lastIndexOf('}');
  if (i >= 0 && j > i) out.push(text.slice(i, j + 1));
  return [...new Set(out)];
}

function quote(s: string): string {
  return JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…` : s);
}

/** A text on one line (controls and line breaks as spaces), cut at `max` characters with a marker. */
export function oneLine(s: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  const flat = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}… [${flat.length - max} more characters]` : flat;
}
