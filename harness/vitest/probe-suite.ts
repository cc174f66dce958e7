import { describe, expect, inject, test } from 'vitest';
import { readConfig } from '../core/config.ts';
import { prepareOutDir, resolveOutDir } from '../core/outdir.ts';
import { loadCases } from '../probe/cases/load.ts';
import { readProbeEnv, selectCases } from '../probe/run/env.ts';
import { loadFinished, recordKey, tidyForResume, writeRecord } from '../probe/run/output.ts';
import { runProbeCase } from '../probe/run/run-case.ts';
import { resolveTemplate } from '../probe/run/template.ts';
import type { ProbeMeta } from '../probe/run/types.ts';
import './probe-matchers.ts';
import { getRuntime } from './runtime.ts';

/**
 * The probe cases as tests: part `part` of `parts` (cases i with i % parts == part - 1), one concurrent test per
 * case and trial, named `probe › <cat> › <id>` so `-t` filters work. Each finished case is appended to
 * cases.jsonl at once; its record is the test's meta (the reporter aggregates from it).
 */
export function defineProbeSuite(part: number, parts: number): void {
  const cfg = readConfig();
  const settings = readProbeEnv();
  const runId = inject('toolgaugeRunId');
  const simUrl = inject('toolgaugeSimUrl');
  const loaded = loadCases(settings.casesFile, { ...(settings.toolsFile ? { toolsFile: settings.toolsFile } : {}), dateContext: cfg.injectedDate });
  const mine = selectCases(loaded.cases, settings).filter((_, i) => i % parts === part - 1);
  const template = resolveTemplate(settings, cfg.injectedDate);
  const outDir = resolveOutDir(cfg, 'probe', settings.transport);
  prepareOutDir(outDir, runId, cfg.resume, tidyForResume);
  const finished = cfg.resume ? loadFinished(outDir) : new Map<string, ProbeMeta>();

  describe(`probe (part ${part}/${parts})`, () => {
    for (const c of mine) {
      for (let trial = 0; trial < cfg.trials; trial++) {
        const name = `probe › ${c.cat} › ${c.id}${cfg.trials > 1 ? ` › trial=${trial}` : ''}`;
        test.concurrent(name, async ({ task, annotate }) => {
          const prev = finished.get(recordKey(c.id, trial));
          let meta: ProbeMeta;
          if (prev) meta = { ...prev, resumed: true };
          else {
            const rt = getRuntime(simUrl);
            meta = await runProbeCase(
              c,
              { client: rt.client, transport: settings.transport, template, family: settings.family, model: cfg.model, injectedDate: cfg.injectedDate, maxTokens: cfg.maxTokens },
              trial,
            );
            writeRecord(outDir, meta);
          }
          task.meta.toolgauge = meta;
          await annotate(summaryLine(meta), meta.error ? 'error' : meta.passed.strict ? 'pass' : 'fail');
          expect(meta).toPassProbeCase();
        });
      }
    }
  });
}

function summaryLine(m: ProbeMeta): string {
  if (m.error) return `error: ${m.error}`;
  const v = (t: 'strict' | 'lenient') => (m.passed[t] ? 'pass' : `${m.cause[t].cause ?? m.cause[t].kind} (${m.cause[t].kind})`);
  return `strict: ${v('strict')} · lenient: ${v('lenient')} · parse tier ${m.parse_tier} · ${m.transport}${m.counterfactual ? ` · counterfactual ${m.counterfactual.passed.strict ? 'passes' : 'fails'}` : ''}${m.resumed ? ' · resumed' : ''}`;
}
