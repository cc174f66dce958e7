import { existsSync } from 'node:fs';
import { sha256File } from '../core/hash.ts';
import { defaultOutDir } from '../kit/outdir.ts';
import type { SuiteDefinition, Verdict } from '../kit/types.ts';
import { probeAggregator } from './aggregator.ts';
import { defaultToolsFile, loadCases } from './cases/load.ts';
import type { ProbeCase } from './cases/types.ts';
import { probeMatchers } from './matchers.ts';
import { readProbeEnv, selectCases, type ProbeSettings } from './run/env.ts';
import { PROBE_FILES } from './run/output.ts';
import { runProbeCase } from './run/run-case.ts';
import { resolveTemplate } from './run/template.ts';
import type { ProbeMeta, ProbeRecord } from './run/types.ts';
import { probeSimResponder } from './sim-responder.ts';

/** The verdict fields the kit needs, from a probe record (strict tier: what the serving stack delivers). */
export function probeMeta(rec: ProbeRecord): ProbeMeta {
  const v = rec.cause.strict;
  const pass = !rec.error && rec.passed.strict;
  return { ...rec, pass, reason: rec.error ?? (pass ? null : `${v.cause ?? v.kind}: ${v.evidence}`) };
}

/**
 * Probe on the suite kit: each case (× trial) asks once through the chosen transport, is parsed under both tiers,
 * scored in layers and attributed; the kit appends its record to cases.jsonl.
 */
export const probeSuite: SuiteDefinition<ProbeCase, ProbeMeta, ProbeSettings> = {
  name: 'probe',
  title: 'Probe',
  settings: (env) => readProbeEnv(env),
  outDir: (run, s) => defaultOutDir(run.outDir, 'probe', s.transport),
  outputs: [PROBE_FILES.cases],
  recordFiles: [PROBE_FILES.cases],
  load(run, s) {
    const loaded = loadCases(s.casesFile, { ...(s.toolsFile ? { toolsFile: s.toolsFile } : {}), dateContext: run.injectedDate });
    // Prepare the template once, while collecting (its check runs here, not in the first test).
    resolveTemplate(s, run.injectedDate);
    return { instances: selectCases(loaded.cases, s), dataset: existsSync(s.casesFile) ? { file: s.casesFile, sha256: sha256File(s.casesFile), origin: 'probe cases' } : null };
  },
  parts: 4,
  testName: (c) => `probe › ${c.cat} › ${c.id}`,
  async run(c, ctx) {
    const rec = await runProbeCase(
      c,
      { client: ctx.client(), transport: ctx.settings.transport, template: resolveTemplate(ctx.settings, ctx.run.injectedDate), family: ctx.settings.family, model: ctx.run.model, injectedDate: ctx.run.injectedDate, maxTokens: ctx.run.maxTokens },
      ctx.trial,
    );
    const meta = probeMeta(rec);
    return { meta, records: { [PROBE_FILES.cases]: meta } };
  },
  failed: (c, trial, message) => {
    const v = { cause: null, kind: 'not_rendered' as const, evidence: message };
    return probeMeta({
      suite: 'probe', id: c.id, trial, cat: c.cat, family: c.family, split: c.split, error: message, transport: 'chat', model: '', expects_call: c.expected !== null,
      expected: c.expected, output: null, prompt_sha256: null, parse: null, parse_tier: 'none', scores: null, passed: { strict: false, lenient: false },
      cause: { strict: v, lenient: v }, template_sha256: null, template_findings: [], counterfactual: null, latency_ms: 0, attempts: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, wall_ms: 0,
    });
  },
  verdict: probeVerdict,
  aggregator: probeAggregator,
  config(run, s) {
    let template: Record<string, unknown> | null = null;
    try {
      const t = resolveTemplate(s, run.injectedDate);
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
      template = { file: s.templateFile ?? null, error: (err as Error).message };
    }
    return {
      transport: s.transport,
      cases_file: s.casesFile,
      tools_file: s.toolsFile ?? defaultToolsFile(s.casesFile),
      split: s.split,
      only: s.only ?? null,
      categories: s.categories ?? null,
      family: s.family,
      template,
      concurrency: run.concurrency,
      request_timeout_ms: run.requestTimeoutMs,
      retries: run.retries,
      cache: run.cache,
      max_tokens: run.maxTokens ?? null,
    };
  },
  templateSha256(run, s) {
    try {
      return resolveTemplate(s, run.injectedDate)?.sha256 ?? null;
    } catch {
      return null;
    }
  },
  responder: (run, s) => probeSimResponder(run, s),
  metricNames: () => ['accuracy', 'parse_ok', 'schema_valid', 'tool_correct', 'args_correct', 'abstained', 'false_trigger', 'error_rate', 'lenient.*', 'attribution.*', 'pass@*', 'pass^*'],
};

export function probeVerdict(m: ProbeMeta): Verdict {
  const r = probeMatchers.toPassProbeCase(m);
  const v = (t: 'strict' | 'lenient') => (m.passed[t] ? 'pass' : `${m.cause[t].cause ?? m.cause[t].kind} (${m.cause[t].kind})`);
  const summary = m.error
    ? `error: ${m.error}`
    : `strict: ${v('strict')} · lenient: ${v('lenient')} · parse tier ${m.parse_tier} · ${m.transport}${m.counterfactual ? ` · counterfactual ${m.counterfactual.passed.strict ? 'passes' : 'fails'}` : ''}${m.resumed ? ' · resumed' : ''}`;
  return { pass: r.pass, message: r.message(), summary };
}
