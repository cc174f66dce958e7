import { existsSync } from 'node:fs';
import { redactUrl, type RunConfig } from '../core/config.ts';
import { sha256File } from '../core/hash.ts';
import { defaultOutDir } from '../kit/outdir.ts';
import type { SamplingNeeds } from '../kit/sampling.ts';
import type { RunContext, SuiteDefinition, Verdict } from '../kit/types.ts';
import { constraintFor } from '../constrain/requests.ts';
import type { Method } from '../methods/types.ts';
import { paTool, PA_TOOL_DEFAULTS } from '../methods/pa-tool.ts';
import { userMethod } from './run/user-method.ts';
import { ModelClient } from '../model/client.ts';
import { isSimModel } from '../sim/policy-spec.ts';
import { probeCaseView } from './case-view.ts';
import type { RunIdentity } from '../calls/lineup/lineup.ts';
import { probeAggregator, PROBE_METRICS } from './aggregator.ts';
import { defaultToolsFile, loadCases } from './cases/load.ts';
import { probeMatchers } from './matchers.ts';
import {
  checkAxes,
  familyFor,
  instancesOf,
  instanceTestName,
  modelEntry,
  onSimulator,
  serverFor,
  templateFileOf,
  varyingAxes,
  type ProbeInstance,
} from './run/arms.ts';
import { readProbeEnv, selectCases, type ModelEntry, type ProbeSettings } from './run/env.ts';
import { bundledRegistry } from '../calls/registry/registry.ts';
import { PROBE_FILES } from './run/output.ts';
import { COMPLETION_MAX_TOKENS, runProbeCase, type ProbeRunContext } from './run/run-case.ts';
import { ggufPathOf, ggufRunIdentity, ggufTemplate } from './run/gguf-lineup.ts';
import { measureCaseDamage, runEngineSource } from './run/quant-damage-run.ts';
import { engineScorer } from './run/pa-tool-local.ts';
import { chatSampler } from './run/sampler.ts';
import { resolveTemplate, type PreparedTemplate } from './run/template.ts';
import { RENDER_V8_FLAGS } from '../templates/index.ts';
import { ProbeMetaSchema } from './run/meta-schema.ts';
import type { ProbeMeta, ProbeRecord } from './run/types.ts';
import { probeSimResponder } from './sim-responder.ts';

/** The verdict fields the kit needs, from a probe record (strict tier: what the serving stack delivers). */
export function probeMeta(rec: ProbeRecord): ProbeMeta {
  const v = rec.cause.strict;
  const pass = !rec.error && rec.passed.strict;
  return { ...rec, pass, reason: rec.error ?? (pass ? null : `${v.cause ?? v.kind}: ${v.evidence}`) };
}

/** A model's template, prepared once per process (its own lineup template, else `--template`). */
export function templateOf(m: ModelEntry, s: ProbeSettings, injectedDate: string): PreparedTemplate | null {
  const file = templateFileOf(m, s);
  // a local GGUF file carries its own template (tokenizer.chat_template): the one its server renders chat with
  if (file === undefined && ggufPathOf(m.model) !== null) {
    const own = ggufTemplate(ggufPathOf(m.model)!, injectedDate);
    if (own) return own;
  }
  return resolveTemplate({ transport: s.transport, templateFile: file }, injectedDate);
}

/** Probe instances carry their test name (the kit names a test from the instance alone). */
type Instance = ProbeInstance & { name: string };

// Clients and methods per model, shared by every test of a worker. A lineup entry's client has the kit client's
// options (timeouts, retries, cache, backoff, concurrency) with the entry's model, endpoint and key.
const clients = new Map<string, ModelClient>();
const methods = new Map<string, Method>();

function clientFor(ctx: RunContext<ProbeSettings>, m: ModelEntry): ModelClient {
  const base = ctx.client();
  if (m.model === ctx.run.model && m.baseUrl === undefined && !ctx.settings.apiKeys[m.label]) return base;
  const opts = {
    ...base.opts,
    model: m.model,
    baseUrl: m.baseUrl ?? base.opts.baseUrl,
    // A key goes only to the endpoint it belongs to: the run's key for the run's endpoint, an entry's own key otherwise.
    apiKey: ctx.settings.apiKeys[m.label] ?? (m.baseUrl === undefined ? base.opts.apiKey : 'not-needed'),
  };
  const key = JSON.stringify(opts);
  let c = clients.get(key);
  if (!c) clients.set(key, (c = new ModelClient(opts)));
  return c;
}

/**
 * What every probe request of the model under test is asked with: the run's temperature, top_p 1 unless `--top-p`
 * says otherwise (Toolhound fixes temperature 0, top_p 1 and a seed; a server's own default top_p is not always 1,
 * so it is sent rather than left out), the run's max tokens (1024 on completions when none is set: OpenAI-style
 * servers default to 16). The seed is the kit's (trial t sends seed + t).
 */
export function probeSampling(
  run: Pick<RunConfig, 'temperature' | 'maxTokens'>,
  s: Pick<ProbeSettings, 'topP' | 'transport'>,
): SamplingNeeds {
  const maxTokens = run.maxTokens ?? (s.transport === 'completions' ? COMPLETION_MAX_TOKENS : undefined);
  return {
    base: {
      temperature: run.temperature,
      top_p: s.topP ?? 1,
      ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    },
  };
}

function methodFor(
  name: string,
  m: ModelEntry,
  s: ProbeSettings,
  client: ModelClient,
  run: RunConfig,
): ProbeRunContext['method'] {
  const { seed, injectedDate } = run;
  if (name === 'baseline') return undefined;
  const sampler = chatSampler(client, name, s.topP ?? 1);
  if (name !== 'pa_tool') {
    // a user's method (`--method-module`): registered in this process once its module is loaded
    const module = s.methodModule;
    return {
      name,
      prepare: async (req) => (await userMethod(name, module)).prepare(req, { sampler, seed }),
    };
  }
  const key = `${name}|${m.label}|${s.paToolSamples ?? ''}|${JSON.stringify(client.opts.baseUrl)}`;
  let method = methods.get(key);
  if (!method) methods.set(key, (method = paTool(s.paToolSamples ? { n: s.paToolSamples } : {})));
  const bound = method;
  // on a local GGUF file, PA-Tool reads the model's token probabilities instead of estimating them from samples
  const path = ggufPathOf(m.model);
  const scorer = path !== null ? engineScorer(path, injectedDate, runEngineSource(path, run, s.models)) : undefined;
  return { name, prepare: (req) => bound.prepare(req, { sampler, seed, ...(scorer ? { scorer } : {}) }) };
}

/**
 * A quantized lineup entry whose reference is also a local GGUF file: the case's damage figure (teacher-forced gold
 * transcript through both files), measured once per case, in the reference decode and method arm.
 */
async function damageOf(
  i: Instance,
  m: ModelEntry,
  s: ProbeSettings,
  run: RunConfig,
): Promise<Pick<ProbeRecord, 'quant_damage' | 'quant_damage_error'>> {
  const ref = m.quantizationOf !== undefined ? s.models.find((x) => x.label === m.quantizationOf) : undefined;
  const quantPath = ggufPathOf(m.model);
  const refPath = ref ? ggufPathOf(ref.model) : null;
  if (
    !ref ||
    quantPath === null ||
    refPath === null ||
    i.case.expected === null ||
    i.arm.decode !== s.decode[0] ||
    i.arm.method !== s.methods[0]
  )
    return {};
  try {
    return {
      quant_damage: await measureCaseDamage(
        i.case,
        { label: ref.label, path: refPath },
        { path: quantPath },
        run.injectedDate,
        (path) => runEngineSource(path, run, s.models),
      ),
      quant_damage_error: null,
    };
  } catch (err) {
    return { quant_damage: null, quant_damage_error: (err as Error).message.split('\n')[0]! };
  }
}

/** What the quantization guard checks for a model: the template's hash and the tokenizer, with where each came from. */
export function identityOf(m: ModelEntry, s: ProbeSettings, tpl: PreparedTemplate | null): RunIdentity {
  // a local GGUF file says both itself (the server in front of it would only repeat them)
  const own = ggufRunIdentity(m);
  if (own) return own;
  const ep = s.endpoints[m.label];
  const template = tpl
    ? { sha256: tpl.sha256, source: '--template' as const }
    : ep?.template_sha256
      ? { sha256: ep.template_sha256, source: 'server' as const }
      : null;
  const tokenizer =
    s.tokenizer && s.models.length === 1
      ? { id: s.tokenizer, source: '--tokenizer' as const }
      : ep?.tokenizer
        ? { id: ep.tokenizer, source: 'server' as const }
        : null;
  return { label: m.label, template, tokenizer };
}

const simulated = (run: RunConfig, s: ProbeSettings) =>
  s.models.some((m) => onSimulator(m, run) || isSimModel(m.model));

/**
 * Probe on the suite kit: each case × arm (decode, method, model) asks once through the chosen transport, is parsed
 * under both tiers, scored in layers and attributed; the kit appends its record to cases.jsonl.
 */
export const probeSuite: SuiteDefinition<Instance, ProbeMeta, ProbeSettings> = {
  name: 'probe',
  title: 'Probe',
  settings: (env, run) => readProbeEnv(env, run.model),
  outDir: (run, s) => defaultOutDir(run.outDir, 'probe', s.transport),
  outputs: [PROBE_FILES.cases],
  recordFiles: [PROBE_FILES.cases],
  // Each case's prompt is rendered from its template (completions transport), and each template checked on load.
  v8Flags: RENDER_V8_FLAGS,
  load(run, s) {
    const loaded = loadCases(s.casesFile, {
      ...(s.toolsFile ? { toolsFile: s.toolsFile } : {}),
      dateContext: run.injectedDate,
    });
    // Prepare each template once, while collecting (its check runs here, not in the first test), and refuse an
    // axis the run cannot honour before any instance runs.
    const families = new Map(s.models.map((m) => [m.label, templateOf(m, s, run.injectedDate)?.family ?? null]));
    checkAxes(s, run, (m) => families.get(m.label) ?? null);
    const axes = varyingAxes(s);
    const instances = instancesOf(selectCases(loaded.cases, s), s).map((i) => ({
      ...i,
      name: instanceTestName(i, axes),
    }));
    return {
      instances,
      dataset: existsSync(s.casesFile)
        ? { file: s.casesFile, sha256: sha256File(s.casesFile), origin: 'probe cases' }
        : null,
    };
  },
  parts: 4,
  testName: (i) => i.name,
  async run(i, ctx) {
    const s = ctx.settings;
    const m = modelEntry(s, i.arm.model);
    const client = clientFor(ctx, m);
    const template = templateOf(m, s, ctx.run.injectedDate);
    const sim = onSimulator(m, ctx.run);
    const family = familyFor(m, s, template?.family ?? null, sim);
    const server = serverFor(m, s, sim);
    const rec = await runProbeCase(
      i.case,
      {
        client,
        transport: s.transport,
        template,
        family: family ?? 'auto',
        model: m.model,
        injectedDate: ctx.run.injectedDate,
        ...ctx.sampling(),
        ...(i.arm.decode !== 'free' && server
          ? {
              constrain: {
                server,
                ...(s.maxStringLength !== undefined ? { maxStringLength: s.maxStringLength } : {}),
                ...(i.arm.decode === 'required' ? { required: true } : {}),
              },
            }
          : {}),
        ...(i.arm.method !== 'baseline' ? { method: methodFor(i.arm.method, m, s, client, ctx.run) } : {}),
        arm: i.arm,
      },
      ctx.trial,
      i.id,
    );
    const damage = await damageOf(i, m, s, ctx.run);
    const meta = probeMeta({ ...rec, ...damage });
    return { meta, records: { [PROBE_FILES.cases]: meta } };
  },
  failed: (i, trial, message) => {
    const c = i.case;
    const v = { cause: null, kind: 'not_rendered' as const, evidence: message };
    return probeMeta({
      suite: 'probe',
      id: i.id,
      trial,
      cat: c.cat,
      family: c.family,
      split: c.split,
      error: message,
      transport: 'chat',
      model: '',
      expects_call: c.expected !== null,
      expected: c.expected,
      output: null,
      prompt_sha256: null,
      parse: null,
      parse_tier: 'none',
      scores: null,
      passed: { strict: false, lenient: false },
      cause: { strict: v, lenient: v },
      template_sha256: null,
      template_findings: [],
      counterfactual: null,
      latency_ms: 0,
      attempts: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      wall_ms: 0,
      case_id: c.id,
      arm: i.arm,
    });
  },
  verdict: probeVerdict,
  metaSchema: ProbeMetaSchema,
  caseView: probeCaseView,
  aggregator: probeAggregator,
  // With the aggregator's comparableOn (transport): what else changes a case's outcome (harness/kit/fingerprint.ts).
  fingerprintOn: ['family', 'identity', 'axes'],
  config(run, s) {
    const ref = s.models[0]!;
    let template: Record<string, unknown> | null = null;
    try {
      const t = templateOf(ref, s, run.injectedDate);
      if (t) {
        template = {
          file: t.file,
          sha256: t.sha256,
          family: t.family,
          findings: t.check.findings.map((f) => ({ id: f.id, detail: f.detail, repro: f.repro })),
          engine_limitations: t.check.engineLimitations,
          repaired_sha256: t.repaired?.sha256 ?? null,
        };
      }
    } catch (err) {
      template = { file: templateFileOf(ref, s) ?? null, error: (err as Error).message };
    }
    const models = s.models.map((m) => {
      let tpl: PreparedTemplate | null = null;
      try {
        tpl = templateOf(m, s, run.injectedDate);
      } catch {
        tpl = null;
      }
      const sim = onSimulator(m, run);
      const family = familyFor(m, s, tpl?.family ?? null, sim);
      const server = serverFor(m, s, sim);
      const constrained = s.decode.find((d) => d !== 'free');
      const k =
        constrained && server
          ? constraintFor(server, family, [{ name: 'tool', parameters: { type: 'object', properties: {} } }], {
              transport: s.transport,
              ...(s.maxStringLength !== undefined ? { maxStringLength: s.maxStringLength } : {}),
              ...(constrained === 'required' ? { required: true } : {}),
            })
          : null;
      return {
        label: m.label,
        model: m.model,
        base_url: m.baseUrl ? (redactUrl(m.baseUrl) ?? null) : null,
        simulated: sim,
        template_sha256: tpl?.sha256 ?? null,
        family,
        server,
        constraint: k ? (k.ok ? k.mechanism : `refused: ${k.reason}`) : null,
        quantization: m.quantization ?? null,
        quantization_of: m.quantizationOf ?? null,
        ...modelSource(m, s),
        identity: identityOf(m, s, tpl),
        endpoint: s.endpoints[m.label] ?? null,
      };
    });
    return {
      transport: s.transport,
      cases_file: s.casesFile,
      tools_file: s.toolsFile ?? defaultToolsFile(s.casesFile),
      split: s.split,
      only: s.only ?? null,
      categories: s.categories ?? null,
      family: s.family,
      template,
      simulated: simulated(run, s),
      axes: {
        decode: s.decode,
        method: s.methods,
        server: s.server,
        max_string_length: s.maxStringLength ?? null,
        method_module: s.methodModule ? { file: s.methodModule, sha256: sha256File(s.methodModule) } : null,
        pa_tool: s.methods.includes('pa_tool')
          ? { ...PA_TOOL_DEFAULTS, ...(s.paToolSamples ? { n: s.paToolSamples } : {}) }
          : null,
        lineup_file: s.lineupFile ?? null,
        models,
      },
      label: ref.label,
      quantization: ref.quantization ?? null,
      quantization_of: ref.quantizationOf ?? null,
      identity: models[0]!.identity,
      concurrency: run.concurrency,
      request_timeout_ms: run.requestTimeoutMs,
      retries: run.retries,
      cache: run.cache,
      max_tokens: run.maxTokens ?? null,
    };
  },
  templateSha256(run, s) {
    try {
      return templateOf(s.models[0]!, s, run.injectedDate)?.sha256 ?? null;
    } catch {
      return null;
    }
  },
  sampling: (run, s) => probeSampling(run, s),
  generationFacts(run, s) {
    // The arms, and what the endpoints said about themselves (where they say it).
    const endpoints = Object.fromEntries(
      s.models.map((m) => {
        const e = s.endpoints[m.label];
        return [
          m.label,
          e
            ? { server: e.server, server_version: e.server_version, model_revision: e.model_revision, from: e.sources }
            : onSimulator(m, run)
              ? { server: 'toolgauge simulator', server_version: null, model_revision: null }
              : null,
        ];
      }),
    );
    // The models' repository and revision, where the registry, the lineup or the endpoint knows them.
    const sources = Object.fromEntries(s.models.map((m) => [m.label, modelSource(m, s)]));
    const known = Object.values(sources).some((x) => Object.values(x).some((v) => v !== null));
    return {
      decode: s.decode,
      method: s.methods,
      // PA-Tool's own sampling requests: its temperature (and a greedy one at 0), seeds derived from the run's seed
      // and the prompt, the same in every trial (config.axes.pa_tool has its values).
      ...(s.methods.includes('pa_tool')
        ? { method_sampling: { pa_tool: 'own temperature; seeds from the run seed and the prompt' } }
        : {}),
      ...(s.decode.some((d) => d !== 'free') ? { max_string_length: s.maxStringLength ?? null } : {}),
      endpoints,
      ...(known ? { model_sources: sources } : {}),
    };
  },
  responder: (run, s) => probeSimResponder(run, s),
  metricNames: () => [...PROBE_METRICS, 'lenient.*', 'layers.*', 'pass@*', 'pass^*'],
};

/** What is known of a model's weights: its registry key, repository and revision, and the endpoint's revision. */
function modelSource(
  m: ModelEntry,
  s: ProbeSettings,
): { registry: string | null; repo: string | null; revision: string | null; endpoint_revision: string | null } {
  // A model named by its repository (`--model Qwen/Qwen2.5-7B-Instruct`) is the registry's entry for it.
  const known =
    m.registry === undefined ? Object.entries(bundledRegistry().models).find(([, e]) => e.repo === m.model) : undefined;
  return {
    registry: m.registry ?? known?.[0] ?? null,
    repo: m.repo ?? known?.[1].repo ?? null,
    revision: m.revision ?? known?.[1].revision ?? null,
    endpoint_revision: s.endpoints[m.label]?.model_revision ?? null,
  };
}

export function probeVerdict(m: ProbeMeta): Verdict {
  const r = probeMatchers.toPassProbeCase(m);
  const v = (t: 'strict' | 'lenient') =>
    m.passed[t] ? 'pass' : `${m.cause[t].cause ?? m.cause[t].kind} (${m.cause[t].kind})`;
  const summary = m.error
    ? `error: ${m.error}`
    : `strict: ${v('strict')} · lenient: ${v('lenient')} · parse tier ${m.parse_tier} · ${m.transport}${m.constraint ? ` · constrained (${m.constraint.mechanism})` : ''}${m.counterfactual ? ` · counterfactual ${m.counterfactual.passed.strict ? 'passes' : 'fails'}` : ''}${m.resumed ? ' · resumed' : ''}`;
  return { pass: r.pass, message: r.message(), summary };
}

// The registry loads a suite folder's definition as its default export (harness/kit/suite-folders.ts).
export default probeSuite;
