/**
 * PA-Tool — "Don't Adapt Small Language Models for Tools; Adapt Tool Schemas to the Models" (Lee, Song, Han,
 * Pyun, Jo; arXiv 2510.07248, ACL 2026). Zero-training: rename each tool and parameter to the name the model
 * itself converges on, so the schema matches what the model learned in pretraining.
 *
 * For each component (a tool name, then each of its parameter names):
 *   1. candidates: ask the model N times, sampling, to name the component from its description;
 *   2. peakedness (the contamination-detection signal the paper borrows): for candidate cᵢ, the number of other
 *      candidates within edit distance τ = α · (longest candidate's length) — how strongly the samples
 *      concentrate around it;
 *   3. select the candidate with the highest peakedness; ties go to the one closest (edit distance) to the
 *      model's greedy answer (temperature 0), then alphabetical.
 * The call the model makes with the presented names is mapped back to the original names before scoring.
 *
 * Only sampling is needed — `n` samples at a temperature and one greedy sample, which any OpenAI-compatible
 * endpoint gives (chat `n` / per-request seeds); no step needs token likelihoods. On a local engine (`gguf:`), where
 * token probabilities are at hand, step 2–3 read them instead (`MethodContext.scorer`): every distinct candidate, the
 * greedy answer and the current name are scored by the model's own log-probability of answering exactly that, and
 * the most probable is chosen — the mode peakedness estimates from samples, read directly.
 *
 * Defaults N = 32, temperature 0.4, α = 0.2 follow Toolhound's reconstruction of the paper (the stored copies of
 * the paper reachable here hold its abstract and project page, not its hyperparameter table); all configurable.
 * Safeguards outside the paper, each keeping the original name when it fires: answers that hold no usable
 * identifier, keyword-like or generic words, and names that collide with another tool or parameter. A parameter
 * without a description is asked about with its current name as context (otherwise there is nothing to name).
 */
import { sha256, stableStringify } from '../core/hash.ts';
import { deriveSeed } from '../core/rng.ts';
import type { OpenAITool } from '../core/chat.ts';
import { originalCall, presentMessages, presentTools, type RenameMap } from './rename.ts';
import type { AnswerScorer, Method, MethodContext, MethodRequest, PreparedMethod, Sampler } from './types.ts';

export interface PaToolOptions {
  n?: number;
  temperature?: number;
  alpha?: number;
  maxTokens?: number;
}

export const PA_TOOL_DEFAULTS = { n: 32, temperature: 0.4, alpha: 0.2, maxTokens: 16 } as const;

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

/** Peakedness of each candidate: how many other candidates lie within τ = α · max length. */
export function peakedness(cands: readonly string[], alpha: number = PA_TOOL_DEFAULTS.alpha): number[] {
  if (cands.length === 0) return [];
  const tau = alpha * Math.max(...cands.map((c) => c.length));
  return cands.map((c, i) => cands.reduce((k, d, j) => (j !== i && editDistance(c, d) <= tau ? k + 1 : k), 0));
}

/** The highest-peakedness candidate; ties: closest to the greedy reference, then alphabetical. */
export function selectName(
  cands: readonly string[],
  reference: string | null,
  alpha: number = PA_TOOL_DEFAULTS.alpha,
): string | null {
  if (cands.length === 0) return null;
  const p = peakedness(cands, alpha);
  const best = Math.max(...p);
  const tied = [...new Set(cands.filter((_, i) => p[i] === best))];
  const dist = (c: string) => (reference === null ? 0 : editDistance(c, reference));
  tied.sort((a, b) => dist(a) - dist(b) || (a < b ? -1 : a > b ? 1 : 0));
  return tied[0]!;
}

const GENERIC = new Set([
  'the',
  'a',
  'an',
  'name',
  'function',
  'tool',
  'parameter',
  'param',
  'arg',
  'argument',
  'value',
  'input',
  'here',
  'this',
  'it',
  'sure',
  'answer',
]);
const KEYWORDS = new Set([
  'and',
  'or',
  'not',
  'if',
  'else',
  'for',
  'while',
  'def',
  'class',
  'return',
  'import',
  'from',
  'in',
  'is',
  'none',
  'true',
  'false',
  'null',
  'function',
  'var',
  'let',
  'const',
]);

/** The name in a model's answer: its first identifier-like word (code spans and quotes ignored), snake_case. */
export function extractName(answer: string): string | null {
  const m = /[A-Za-z_][A-Za-z0-9_]*/.exec(answer.replace(/[`'"*]/g, ' '));
  if (!m) return null;
  const name = m[0]
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (name.length < 2 || GENERIC.has(name) || KEYWORDS.has(name)) return null;
  return name;
}

export function toolPrompt(description: string): string {
  return `Here is what a function does: ${description}\nWhat would you call this function? Answer with the function name only, in snake_case.`;
}

export function paramPrompt(
  toolDescription: string,
  param: { name: string; type?: string; description?: string },
): string {
  const what = param.description ? `It holds: ${param.description}` : `It is currently called "${param.name}".`;
  return `A function does this: ${toolDescription}\nOne of its arguments${param.type ? ` (type ${param.type})` : ''} needs a name. ${what}\nWhat would you call this argument? Answer with the argument name only, in snake_case.`;
}

async function pick(
  s: Sampler,
  prompt: string,
  o: Required<PaToolOptions>,
  seed: number,
  scorer?: AnswerScorer,
  current?: string,
): Promise<Picked> {
  const answers = await s.sample(prompt, { n: o.n, temperature: o.temperature, seed, maxTokens: o.maxTokens });
  const [greedy] = await s.sample(prompt, { n: 1, temperature: 0, seed, maxTokens: o.maxTokens });
  const candidates = answers.map(extractName).filter((x): x is string => x !== null);
  const reference = greedy === undefined ? null : extractName(greedy);
  if (!scorer) return { name: selectName(candidates, reference, o.alpha), candidates, reference };
  const scored = await scoreCandidates(scorer, prompt, [
    ...candidates,
    ...(reference ? [reference] : []),
    ...(current ? [current] : []),
  ]);
  return { name: scored[0]?.name ?? null, candidates, reference, scores: scored };
}

/**
 * The decode-time selection on a local engine: each distinct candidate (the samples, the greedy answer, the current
 * name) scored by the model's own log-probability of writing exactly it as the answer; the most probable wins
 * (ties: alphabetical). Peakedness over samples estimates the same mode; token probabilities read it directly.
 */
export async function scoreCandidates(
  scorer: AnswerScorer,
  prompt: string,
  names: readonly string[],
): Promise<Array<{ name: string; logprob: number }>> {
  const distinct = [...new Set(names)];
  const out = await Promise.all(distinct.map(async (name) => ({ name, logprob: await scorer.logprob(prompt, name) })));
  return out.sort((a, b) => b.logprob - a.logprob || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

type Picked = {
  name: string | null;
  candidates: string[];
  reference: string | null;
  scores?: Array<{ name: string; logprob: number }>;
};

/**
 * The rename map PA-Tool chooses for these tools (pure given the sampler's answers). Each component is asked with
 * a seed derived from its prompt, so the same tool (or parameter) gets the same samples in every tool set;
 * `picks` shares the answers across calls (one adaptation per component, not per tool set).
 */
export async function paToolRename(
  tools: readonly OpenAITool[],
  sampler: Sampler,
  seed: number,
  opts: PaToolOptions = {},
  picks: Map<string, Promise<Picked>> = new Map(),
  scorer?: AnswerScorer,
): Promise<{
  map: RenameMap;
  log: Array<{
    component: string;
    chosen: string;
    candidates: number;
    reference: string | null;
    scores?: Array<{ name: string; logprob: number }>;
  }>;
}> {
  const o = { ...PA_TOOL_DEFAULTS, ...opts };
  const ask = (prompt: string, current: string): Promise<Picked> => {
    const key = `${seed}\u0000${prompt}${scorer ? `\u0000${current}` : ''}`;
    let p = picks.get(key);
    if (!p)
      picks.set(key, (p = pick(sampler, prompt, o, deriveSeed(seed, 'pa_tool', prompt) % 2 ** 31, scorer, current)));
    return p;
  };
  const map: RenameMap = { tools: {}, params: {} };
  const log: Array<{
    component: string;
    chosen: string;
    candidates: number;
    reference: string | null;
    scores?: Array<{ name: string; logprob: number }>;
  }> = [];
  const originals = new Set(tools.map((t) => t.function.name));
  const usedTools = new Set<string>();
  for (const t of [...tools].sort((a, b) => (a.function.name < b.function.name ? -1 : 1))) {
    const f = t.function;
    const desc = f.description ?? f.name;
    const r = await ask(toolPrompt(desc), f.name);
    const name = r.name && !usedTools.has(r.name) && (r.name === f.name || !originals.has(r.name)) ? r.name : f.name;
    usedTools.add(name);
    if (name !== f.name) map.tools[f.name] = name;
    log.push({
      component: f.name,
      chosen: name,
      candidates: r.candidates.length,
      reference: r.reference,
      ...(r.scores ? { scores: r.scores.slice(0, 5) } : {}),
    });

    const props = ((
      f.parameters as { properties?: Record<string, { type?: string; description?: string }> } | undefined
    )?.properties ?? {}) as Record<string, { type?: string; description?: string }>;
    const used = new Set<string>();
    const pmap: Record<string, string> = {};
    for (const [p, s] of Object.entries(props)) {
      const r2 = await ask(
        paramPrompt(desc, {
          name: p,
          ...(typeof s?.type === 'string' ? { type: s.type } : {}),
          ...(s?.description ? { description: s.description } : {}),
        }),
        p,
      );
      const pn = r2.name && !used.has(r2.name) && (r2.name === p || !(r2.name in props)) ? r2.name : p;
      used.add(pn);
      if (pn !== p) pmap[p] = pn;
      log.push({
        component: `${f.name}.${p}`,
        chosen: pn,
        candidates: r2.candidates.length,
        reference: r2.reference,
        ...(r2.scores ? { scores: r2.scores.slice(0, 5) } : {}),
      });
    }
    if (Object.keys(pmap).length) map.params[f.name] = pmap;
  }
  return { map, log };
}

/**
 * The PA-Tool method; the rename map is computed once per distinct tool set, each component sampled once. One
 * instance per model: the caches do not tell samplers apart.
 */
export function paTool(opts: PaToolOptions = {}): Method {
  const cache = new Map<string, Promise<{ map: RenameMap; log: unknown }>>();
  const picks = new Map<string, Promise<Picked>>();
  return {
    name: 'pa_tool',
    async prepare(req: MethodRequest, ctx: MethodContext): Promise<PreparedMethod> {
      if (!ctx.sampler)
        throw new Error('pa_tool needs the model endpoint to sample candidate names (no sampler was given)');
      const sampler = ctx.sampler;
      const key = sha256(stableStringify({ tools: req.tools, seed: ctx.seed, opts, scorer: ctx.scorer?.name ?? null }));
      let got = cache.get(key);
      if (!got) cache.set(key, (got = paToolRename(req.tools, sampler, ctx.seed, opts, picks, ctx.scorer)));
      const { map, log } = await got;
      return {
        request: { tools: presentTools(req.tools, map), messages: presentMessages(req.messages, map) },
        toOriginal: (c) => originalCall(c, map),
        meta: {
          rename: map,
          log,
          selection: ctx.scorer ? `token probabilities (${ctx.scorer.name})` : 'peakedness of samples',
        },
      };
    },
  };
}
