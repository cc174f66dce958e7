import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as reportCommand } from '../../harness/cli/commands/report.ts';
import { readConfig } from '../../harness/core/config.ts';
import { UsageError } from '../../harness/core/errors.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { reproHeader } from '../../harness/core/repro.ts';
import { finalizeSuite } from '../../harness/kit/finalize.ts';
import { ModelClient } from '../../harness/model/client.ts';
import { loadCases } from '../../harness/probe/cases/load.ts';
import { quantizationRefusal } from '../../harness/probe/quant-guard.ts';
import { runProbeCases } from '../../harness/probe/run/batch.ts';
import type { ProbeSettings } from '../../harness/probe/run/env.ts';
import { createProbeResponder, SIM_DROPPING_TEMPLATE } from '../../harness/probe/sim-responder.ts';
import { probeMeta, probeSuite, templateOf } from '../../harness/probe/suite.ts';
import { referenceTemplate } from '../../harness/templates/index.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { tempDir } from '../helpers/cli.ts';

// `report --compare` of two probe runs labelled as quantizations of one model: refused unless the chat template
// (sha256) and the tokenizer are the same — a template change must not be counted as quantization damage. The runs
// are written as the kit writes them (the suite's config and aggregator, finalizeSuite), from real simulator answers.

const DATE = '2026-01-15';
const all = loadCases(fromRoot('cases', 'probe', 'cases.jsonl'), { dateContext: DATE }).cases;
const byId = new Map(all.map((c) => [c.id, c]));
const some = all.filter((c) => c.split === 'test' && c.cat === 'C1').slice(0, 6);
let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({
    responders: { probe: createProbeResponder({ lookup: (id) => byId.get(id), template: null }) },
  });
});
afterAll(() => sim.close());

const templates = tempDir('quant-templates');
const HERMES = join(templates, 'hermes.jinja');
const OTHER = join(templates, 'other.jinja');
writeFileSync(HERMES, referenceTemplate('hermes')!);
writeFileSync(OTHER, SIM_DROPPING_TEMPLATE);

/** A finished probe run in a fresh directory, labelled as given. */
async function savedRun(env: Record<string, string>): Promise<string> {
  const dir = tempDir('quant-run');
  const run = readConfig({ TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_DATE: DATE });
  const settings = probeSuite.settings(
    { TOOLGAUGE_PROBE_TRANSPORT: 'completions', TOOLGAUGE_PROBE_TOKENIZER: 'qwen2.5-tokenizer', ...env },
    run,
  ) as ProbeSettings;
  const template = templateOf(settings.models[0]!, settings, DATE);
  const client = new ModelClient({ baseUrl: sim.url, model: run.model, timeoutMs: 5000, retries: 1, concurrency: 6 });
  const recs = await runProbeCases(
    some,
    { client, transport: 'completions', template, family: 'auto', model: run.model, injectedDate: DATE },
    6,
  );
  const now = new Date();
  finalizeSuite('probe', probeSuite.aggregator, recs.map(probeMeta), {
    header: reproHeader(run, { templateSha256: template?.sha256 ?? null, startedAt: now, endedAt: now }),
    config: probeSuite.config(run, settings),
    seed: 0,
    outDir: dir,
  });
  return dir;
}

describe('report --compare of quantizations checks template and tokenizer first', () => {
  it('refuses a pair with different chat templates; compares the same pair with the same template', async () => {
    const [bf16, q4Other, q4Same] = await Promise.all([
      savedRun({ TOOLGAUGE_PROBE_TEMPLATE: HERMES, TOOLGAUGE_PROBE_LABEL: 'qwen-bf16' }),
      savedRun({
        TOOLGAUGE_PROBE_TEMPLATE: OTHER,
        TOOLGAUGE_PROBE_LABEL: 'qwen-q4',
        TOOLGAUGE_PROBE_QUANTIZATION: 'Q4_K_M',
        TOOLGAUGE_PROBE_QUANTIZATION_OF: 'qwen-bf16',
      }),
      savedRun({
        TOOLGAUGE_PROBE_TEMPLATE: HERMES,
        TOOLGAUGE_PROBE_LABEL: 'qwen-q4',
        TOOLGAUGE_PROBE_QUANTIZATION: 'Q4_K_M',
        TOOLGAUGE_PROBE_QUANTIZATION_OF: 'qwen-bf16',
      }),
    ]);
    const out = tempDir('quant-compare');
    // the command prints its comparison; keep the test output quiet
    const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const refused = reportCommand([bf16, q4Other, '--compare', '--out-dir', out]);
    await expect(refused).rejects.toThrow(UsageError);
    await expect(reportCommand([bf16, q4Other, '--compare', '--out-dir', out])).rejects.toThrow(
      /refusing to compare qwen-q4 with qwen-bf16 as a quantization: the chat templates differ/,
    );
    expect(existsSync(join(out, 'comparison.md'))).toBe(false);
    // the same two labels with one template: compared
    expect(await reportCommand([bf16, q4Same, '--compare', '--out-dir', out])).toBe(0);
    quiet.mockRestore();
    expect(existsSync(join(out, 'comparison.md'))).toBe(true);
  });

  it('the guard on configs: tokenizers must agree and be known; unrelated runs are not checked', () => {
    const cfg = (label: string, quantOf: string | null, tpl: string, tok: string | null) => ({
      dir: label,
      config: {
        label,
        quantization_of: quantOf,
        identity: {
          label,
          template: { sha256: tpl, source: '--template' },
          tokenizer: tok ? { id: tok, source: '--tokenizer' } : null,
        },
      },
    });
    expect(quantizationRefusal([cfg('a', null, 't1', 'k1'), cfg('b', 'a', 't1', 'k2')])).toMatch(
      /the tokenizers differ/,
    );
    expect(quantizationRefusal([cfg('a', null, 't1', 'k1'), cfg('b', 'a', 't1', null)])).toMatch(
      /the tokenizer of b is unknown/,
    );
    // two quantizations of one model compared with each other are checked too
    expect(quantizationRefusal([cfg('q8', 'a', 't1', 'k1'), cfg('q4', 'a', 't2', 'k1')])).toMatch(
      /the chat templates differ/,
    );
    expect(quantizationRefusal([cfg('a', null, 't1', 'k1'), cfg('b', 'a', 't1', 'k1')])).toBeNull();
    // a different model (no quantization label) is compared freely, templates or not
    expect(quantizationRefusal([cfg('a', null, 't1', 'k1'), cfg('other', null, 't9', null)])).toBeNull();
  });
});
