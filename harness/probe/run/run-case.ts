import { sha256 } from '../../core/hash.ts';
import type { ChatMessage, OpenAITool } from '../../core/chat.ts';
import { constraintFor, type Constraint, type Server } from '../../constrain/requests.ts';
import { unstrictArguments } from '../../constrain/strict.ts';
import type { PreparedMethod } from '../../methods/types.ts';
import type { ModelClient } from '../../model/client.ts';
import { ModelCallError } from '../../model/types.ts';
import { attribute, TIERS, type Tier, type TierOutcome } from '../../calls/attribute/index.ts';
import { priorCalls, type ProbeCase } from '../cases/types.ts';
import type { Family, ParsedCall } from '../../parse/index.ts';
import { scoreTier, type LayeredScore } from '../../calls/score/index.ts';
import { TemplateError } from '../../templates/index.ts';
import type { Transport } from './env.ts';
import { observeChat, observeText, tierObservation, type Observation } from './observe.ts';
import { repeatedUnit } from './repetition.ts';
import { caseNow, renderCase, type PreparedTemplate } from './template.ts';
import type { ProbeRecord } from './types.ts';

/**
 * The per-case pipeline: ask (chat: the server applies its template and parser; completions: toolgauge renders
 * the template and sends raw text), parse under both tiers, score, re-ask with the repaired template when the
 * counterfactual applies, attribute. All I/O of the probe suite's cases happens here; the rest is pure.
 */

export interface ProbeRunContext {
  client: ModelClient;
  transport: Transport;
  /** Known template: rendered (completions) or naming the server's template (chat). */
  template: PreparedTemplate | null;
  family: Family | 'auto';
  model: string;
  injectedDate: string;
  /** Completion length; the completions default is kept high (OpenAI-style servers default to 16 tokens). */
  maxTokens?: number;
  /** Sampling sent with every request (absent: the client's defaults). */
  temperature?: number;
  topP?: number;
  seed?: number;
  /** `--decode constrained`: the server the constraint is written for (absent: free decoding). */
  constrain?: { server: Server; maxStringLength?: number; required?: boolean };
  /** A method other than the baseline: presents the request, maps calls back (bound to the model's sampler). */
  method?: { name: string; prepare(req: { tools: OpenAITool[]; messages: ChatMessage[] }): Promise<PreparedMethod> };
  /** The arm recorded with the result (runs with axes). */
  arm?: ProbeRecord['arm'];
}

/** What is sent for a case: the method's presentation of it and the constraint's body fields. */
interface Presented {
  tools: OpenAITool[];
  messages: ChatMessage[];
  /** Presented call → the call on the case's own schema (method mapping, then strict-mode nulls dropped). */
  toOriginal(call: ParsedCall): ParsedCall;
  extraBody: Record<string, unknown> | undefined;
}

export const COMPLETION_MAX_TOKENS = 1024;

interface Asked {
  obs: Observation;
  output: NonNullable<ProbeRecord['output']>;
  latencyMs: number;
  attempts: number;
  usage: ProbeRecord['usage'];
}

function scoreBoth(c: ProbeCase, obs: Observation): Record<Tier, TierOutcome> {
  return {
    strict: { obs: tierObservation(obs.strict), score: scoreTier(c, tierObservation(obs.strict)) },
    lenient: { obs: tierObservation(obs.lenient), score: scoreTier(c, tierObservation(obs.lenient)) },
  };
}

async function askCompletion(
  ctx: ProbeRunContext,
  c: ProbeCase,
  p: Presented,
  prompt: string,
  family: Family | null,
  trial: number,
  variant?: string,
): Promise<Asked> {
  const r = await ctx.client.completion(
    { prompt, maxTokens: ctx.maxTokens ?? COMPLETION_MAX_TOKENS, ...sampling(ctx, p) },
    { instance: `probe:${c.id}`, trial, ...(variant ? { variant } : {}) },
  );
  return {
    obs: mapObservation(
      observeText(r.text, r.finish_reason, { family, tools: p.tools.map((t) => t.function) }),
      p.toOriginal,
    ),
    output: { content: r.text, tool_calls: [], finish_reason: r.finish_reason },
    latencyMs: r.latencyMs,
    attempts: r.attempts,
    usage: r.usage,
  };
}

async function askChat(
  ctx: ProbeRunContext,
  c: ProbeCase,
  p: Presented,
  family: Family | null,
  trial: number,
): Promise<Asked> {
  const r = await ctx.client.chat(
    {
      messages: p.messages,
      tools: p.tools,
      toolChoice: 'auto',
      ...(ctx.maxTokens ? { maxTokens: ctx.maxTokens } : {}),
      ...sampling(ctx, p),
    },
    { instance: `probe:${c.id}`, trial },
  );
  const output = {
    content: r.content,
    tool_calls: r.tool_calls.map((t) => ({ name: t.function.name, arguments: t.function.arguments })),
    finish_reason: r.finish_reason,
  };
  return {
    obs: mapObservation(observeChat(output, { family, tools: p.tools.map((t) => t.function) }), p.toOriginal),
    output,
    latencyMs: r.latencyMs,
    attempts: r.attempts,
    usage: r.usage,
  };
}

const sampling = (ctx: ProbeRunContext, p: Presented) => ({
  ...(ctx.temperature !== undefined ? { temperature: ctx.temperature } : {}),
  ...(ctx.topP !== undefined ? { topP: ctx.topP } : {}),
  ...(ctx.seed !== undefined ? { seed: ctx.seed } : {}),
  ...(p.extraBody ? { extraBody: p.extraBody } : {}),
});

/** Both tiers' calls on the case's own schema. */
function mapObservation(obs: Observation, toOriginal: (c: ParsedCall) => ParsedCall): Observation {
  const map = (t: Observation['strict']) => ({ ...t, calls: t.calls.map(toOriginal) });
  return { ...obs, strict: map(obs.strict), lenient: map(obs.lenient) };
}

/** The request for a case under the run's method and constraint; a constraint the case cannot take is thrown. */
async function present(
  c: ProbeCase,
  ctx: ProbeRunContext,
  family: Family | null,
): Promise<{
  p: Presented;
  constraint: Extract<Constraint, { ok: true }> | null;
  methodMeta: Record<string, unknown> | null;
}> {
  const prepared = ctx.method ? await ctx.method.prepare({ tools: c.tools, messages: c.messages }) : null;
  const tools = prepared?.request.tools ?? c.tools;
  const messages = prepared?.request.messages ?? c.messages;
  let constraint: Extract<Constraint, { ok: true }> | null = null;
  if (ctx.constrain) {
    const k = constraintFor(
      ctx.constrain.server,
      family,
      tools.map((t) => t.function),
      {
        transport: ctx.transport,
        ...(ctx.constrain.maxStringLength !== undefined ? { maxStringLength: ctx.constrain.maxStringLength } : {}),
        ...(ctx.constrain.required ? { required: true } : {}),
      },
    );
    if (!k.ok) throw new ConstraintRefused(k.reason);
    constraint = k;
  }
  const original = new Map(c.tools.map((t) => [t.function.name, t.function]));
  const strict = constraint?.mechanism === 'openai_strict_tools';
  const toOriginal = (call: ParsedCall): ParsedCall => {
    const back = prepared ? prepared.toOriginal(call) : call;
    return strict
      ? { ...back, arguments: unstrictArguments(back.arguments, original.get(back.name)?.parameters) }
      : back;
  };
  // The record keeps what the method decided for this case (PA-Tool: the rename map), not its sampling log; a
  // user's method (`--method-module`) keeps the meta it returned, whole.
  const methodMeta = prepared
    ? ctx.method!.name === 'pa_tool'
      ? {
          method: ctx.method!.name,
          ...('rename' in prepared.meta ? { rename: prepared.meta.rename } : {}),
          ...(typeof prepared.meta.selection === 'string' ? { selection: prepared.meta.selection } : {}),
        }
      : { method: ctx.method!.name, meta: prepared.meta }
    : null;
  return { p: { tools, messages, toOriginal, extraBody: constraint?.body }, constraint, methodMeta };
}

class ConstraintRefused extends Error {}

const ZERO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

function base(c: ProbeCase, ctx: ProbeRunContext, trial: number): ProbeRecord {
  return {
    suite: 'probe',
    id: c.id,
    trial,
    cat: c.cat,
    family: c.family,
    split: c.split,
    error: null,
    transport: ctx.transport,
    model: ctx.model,
    expects_call: c.expected !== null,
    expected: c.expected,
    output: null,
    prompt_sha256: null,
    parse: null,
    parse_tier: 'none',
    scores: null,
    passed: { strict: false, lenient: false },
    cause: {
      strict: { cause: null, kind: 'not_rendered', evidence: 'not run' },
      lenient: { cause: null, kind: 'not_rendered', evidence: 'not run' },
    },
    template_sha256: ctx.template?.sha256 ?? null,
    template_findings: ctx.template?.check.findings.map((f) => f.id) ?? [],
    prior_calls: priorCalls(c).length,
    render_error: null,
    counterfactual: null,
    latency_ms: 0,
    attempts: 0,
    usage: ZERO_USAGE,
    wall_ms: 0,
    ...(ctx.arm ? { case_id: c.id, arm: ctx.arm, constraint: null, method_meta: null, repetition: false } : {}),
  };
}

function errorRecord(rec: ProbeRecord, message: string, started: number): ProbeRecord {
  const v = { cause: null, kind: 'not_rendered' as const, evidence: message };
  return { ...rec, error: message, cause: { strict: v, lenient: v }, wall_ms: performance.now() - started };
}

export async function runProbeCase(c: ProbeCase, ctx: ProbeRunContext, trial = 0, id = c.id): Promise<ProbeRecord> {
  const started = performance.now();
  const rec = { ...base(c, ctx, trial), id };
  const tpl = ctx.template;
  const family: Family | null = ctx.family !== 'auto' ? ctx.family : (tpl?.family ?? null);
  const now = caseNow(c, ctx.injectedDate);

  // 0. The request as the method presents it, with the constraint's fields.
  let p: Presented;
  try {
    const r = await present(c, ctx, family);
    p = r.p;
    if (r.constraint)
      rec.constraint = {
        server: r.constraint.server,
        mechanism: r.constraint.mechanism,
        description: r.constraint.description,
      };
    if (r.methodMeta) rec.method_meta = r.methodMeta;
  } catch (e) {
    if (e instanceof ModelCallError)
      return errorRecord(rec, `endpoint (${ctx.method?.name ?? 'method'} sampling): ${e.message}`, started);
    if (e instanceof ConstraintRefused) return errorRecord(rec, `cannot constrain this case: ${e.message}`, started);
    throw e;
  }

  // 1. Ask.
  let asked: Asked | null = null;
  let renderError: string | null = null;
  try {
    if (ctx.transport === 'chat') {
      try {
        asked = await askChat(ctx, c, p, family, trial);
      } catch (e) {
        // A server that fails on one case while its (named) template raises on that case's messages: the
        // template, not the endpoint, is the suspect — treat it as a render failure and let the
        // counterfactual decide. Anything else stays an endpoint error.
        const raised = e instanceof ModelCallError && tpl ? templateRaises(tpl, p, now) : null;
        if (!raised) throw e;
        renderError = `the server failed (${e instanceof Error ? e.message : String(e)}) and the named template raises on this case: ${raised}`;
      }
    } else {
      if (!tpl) throw new Error('the completions transport needs a chat template');
      let prompt: string | null = null;
      try {
        prompt = renderCase(tpl.source, tpl.shape, p, now);
      } catch (e) {
        if (e instanceof TemplateError && e.kind === 'engine_unsupported') {
          return errorRecord(
            rec,
            `the rendering engine cannot render this template faithfully (${e.message}); not a template defect`,
            started,
          );
        }
        renderError = e instanceof TemplateError ? `${e.kind}: ${e.message}` : String(e);
      }
      if (prompt !== null) {
        rec.prompt_sha256 = sha256(prompt);
        asked = await askCompletion(ctx, c, p, prompt, family, trial);
      }
    }
  } catch (e) {
    if (e instanceof ModelCallError) return errorRecord(rec, `endpoint: ${e.message}`, started);
    throw e;
  }

  // 2. Score both tiers.
  const original = asked ? scoreBoth(c, asked.obs) : null;
  const failed = !original || TIERS.some((t) => !original[t].score.passed);

  // 3. Counterfactual: only with a known template that has findings and a different repaired version, on a failure.
  let counterfactual: ProbeRecord['counterfactual'] = null;
  if (failed && tpl?.repaired) {
    const fixed = tpl.repaired;
    let prompt: string | null = null;
    try {
      prompt = renderCase(fixed.source, fixed.shape, p, now);
    } catch {
      prompt = null; // the repair cannot render this case either: no counterfactual evidence
    }
    if (prompt !== null) {
      try {
        const cfFamily = ctx.family !== 'auto' ? ctx.family : (tpl.family ?? fixed.family);
        const again = await askCompletion(ctx, c, p, prompt, cfFamily, trial, 'counterfactual');
        const scored = scoreBoth(c, again.obs);
        counterfactual = {
          template_sha256: fixed.sha256,
          output: again.output.content ?? '',
          calls: { strict: again.obs.strict.calls, lenient: again.obs.lenient.calls },
          passed: { strict: scored.strict.score.passed, lenient: scored.lenient.score.passed },
        };
      } catch (e) {
        if (e instanceof ModelCallError)
          return errorRecord(rec, `endpoint (counterfactual re-ask): ${e.message}`, started);
        throw e;
      }
    }
  }

  // 4. Attribute.
  const cause = attribute({
    expectsCall: c.expected !== null,
    transport: ctx.transport,
    family,
    original,
    renderError,
    template: tpl ? { sha256: tpl.sha256, findings: tpl.check.findings.map((f) => f.id) } : null,
    counterfactual: counterfactual
      ? { templateSha256: counterfactual.template_sha256, passed: counterfactual.passed }
      : null,
  });

  const scores: Record<Tier, LayeredScore> | null = original
    ? { strict: original.strict.score, lenient: original.lenient.score }
    : null;
  const out: ProbeRecord = {
    ...rec,
    output: asked?.output ?? null,
    parse: asked ? { strict: asked.obs.strict, lenient: asked.obs.lenient } : null,
    parse_tier: asked?.obs.parseTier ?? 'none',
    scores,
    passed: { strict: !!original?.strict.score.passed, lenient: !!original?.lenient.score.passed },
    cause,
    render_error: renderError,
    counterfactual,
    latency_ms: asked?.latencyMs ?? 0,
    attempts: asked?.attempts ?? 0,
    usage: asked?.usage ?? ZERO_USAGE,
    wall_ms: performance.now() - started,
  };
  if (ctx.arm) out.repetition = repetitionIn(asked?.output ?? null);
  if (!original && cause.strict.kind === 'not_rendered')
    out.error = `the template cannot render this case (${renderError}) and no repaired template makes it pass`;
  return out;
}

/** Whether the output (content and call arguments) holds a degenerate repetition. */
function repetitionIn(out: ProbeRecord['output']): boolean {
  if (!out) return false;
  return [out.content ?? '', ...out.tool_calls.map((t) => t.arguments)].some((t) => repeatedUnit(t) !== null);
}

/** The template's own error on this case (null when it renders, or when only our engine cannot render it). */
function templateRaises(tpl: PreparedTemplate, c: Pick<ProbeCase, 'messages' | 'tools'>, now: Date): string | null {
  try {
    renderCase(tpl.source, tpl.shape, c, now);
    return null;
  } catch (e) {
    if (e instanceof TemplateError && e.kind !== 'engine_unsupported') return `${e.kind}: ${e.message}`;
    return null;
  }
}
