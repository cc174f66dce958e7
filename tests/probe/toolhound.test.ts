import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { ModelClient } from '../../harness/model/client.ts';
import { loadCases } from '../../harness/probe/cases/load.ts';
import { runProbeCases } from '../../harness/probe/run/batch.ts';
import { resolveTemplate } from '../../harness/probe/run/template.ts';
import type { ProbeRecord } from '../../harness/probe/run/types.ts';
import { createProbeResponder } from '../../harness/probe/sim-responder.ts';
import { probeAggregator } from '../../harness/probe/aggregator.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { sampled } from '../../harness/core/testkit.ts';
import { SummarySchema } from '../../harness/report/summary.ts';
import { startSimServer } from '../../harness/sim/server.ts';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';

// Toolhound's own dev cases (152, real third-party data) through toolgauge: as is, on the simulator.

const DIR = fromRoot('..', 'shared', 'data', 'toolhound');
const CASES = join(DIR, 'dev.jsonl');
const TOOLS = join(DIR, 'tools.yaml');

/**
 * Which cases a planted fault must show on, from Toolhound's own file (not from the simulator's rule): a parser gap
 * or a malformed call where a call is expected, a wrong decision anywhere (Toolhound's cases have no prior calls).
 */
function plantedOn(id: string, cause: 'parser_gap' | 'format_failure' | 'decision_failure'): boolean {
  if (cause === 'decision_failure') return true;
  return expectsCall.get(id) === true;
}
const expectsCall = new Map(
  existsSync(CASES)
    ? readFileSync(CASES, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => {
          const r = JSON.parse(l) as { id: string; expected?: unknown; expected_call?: unknown };
          return [r.id, (r.expected ?? r.expected_call ?? null) !== null] as const;
        })
    : [],
);

describe.skipIf(!existsSync(CASES))('Toolhound dev cases on the simulator (needs ../shared/data)', () => {
  it('on sim:oracle (chat) every one of the 152 cases passes, the gate too; files and report agree', async () => {
    const out = tempDir('probe-th-oracle');
    // In process (the kit's sessions and finalize over HTTP to the simulator, as the next case): the `toolgauge
    // probe` command, its exit code and Vitest's tests are run in tests/probe/cli.test.ts and gguf-axes.test.ts.
    const run = await runSuite(probeSuite, {
      TOOLGAUGE_PROBE_CASES: CASES,
      TOOLGAUGE_PROBE_TOOLS: TOOLS,
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_OUT_DIR: out,
      TOOLGAUGE_GATE: 'accuracy>=1',
    });
    expect(run.finalized.harnessErrors).toBe(0);
    expect(run.finalized.gate?.passed).toBe(true);
    const summary = SummarySchema.parse(readJson(join(out, 'summary.json')));
    expect(summary.metrics.accuracy).toMatchObject({ value: 1, n: 152 });
    expect(summary.counts).toMatchObject({
      instances: 152,
      passed: 152,
      errors: 0,
      abstention: 21,
      call_expected: 131,
    });
    expect(summary.breakdowns.category!.C7).toBeDefined();
    expect(summary.gate?.passed).toBe(true);
    const lines = readLines<ProbeRecord>(join(out, 'cases.jsonl'));
    expect(lines).toHaveLength(152);
    expect(lines.every((l) => l.passed.strict && l.transport === 'chat' && l.parse_tier !== 'lenient')).toBe(true);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(
      /calibration fixture[\s\S]*## Layered scores[\s\S]*## Attribution[\s\S]*## By category/,
    );
  });

  it('on sim:fault?cause=parser_gap (completions) the report shows the planted cause on every call-expected case', async () => {
    const out = tempDir('probe-th-gap');
    // In process, as the case above.
    const run = await runSuite(probeSuite, {
      TOOLGAUGE_PROBE_CASES: CASES,
      TOOLGAUGE_PROBE_TOOLS: TOOLS,
      TOOLGAUGE_MODEL: 'sim:fault?cause=parser_gap',
      TOOLGAUGE_PROBE_TRANSPORT: 'completions',
      TOOLGAUGE_OUT_DIR: out,
    });
    expect(run.finalized.harnessErrors).toBe(0);
    expect(probeAggregator.terminal(run.finalized.summary, out)).toMatch(/causes \(strict\): framework_parser_gap 131/);
    const summary = SummarySchema.parse(readJson(join(out, 'summary.json')));
    expect((summary.extra.attribution as Record<string, Record<string, number>>).strict).toEqual({
      framework_parser_gap: 131,
      passed: 21,
    });
    expect((summary.metrics.accuracy as { value: number }).value).toBeCloseTo(21 / 152, 5);
    expect((summary.metrics.lenient as Record<string, { value: number }>).accuracy!.value).toBe(1);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    expect(report).toMatch(/\| framework: parser gap \| 131 \| 100\.0% \| 0 \|/);
    expect(report).toContain('## Minimal repros to file upstream');
  });

  it('every planted cause shows on its affected cases, both transports (pipeline over HTTP)', async () => {
    const loaded = loadCases(CASES, { toolsFile: TOOLS, dateContext: '2026-01-15' });
    const byId = new Map(loaded.cases.map((c) => [c.id, c]));
    const sim = await startSimServer({
      responders: { probe: createProbeResponder({ lookup: (id) => byId.get(id), template: null }) },
    });
    try {
      for (const transport of ['chat', 'completions'] as const) {
        for (const [cause, want] of [
          ['parser_gap', 'framework_parser_gap'],
          ['format_failure', 'model_format_failure'],
          ['decision_failure', 'model_decision_failure'],
        ] as const) {
          const model = `sim:fault?cause=${cause}`;
          const client = new ModelClient({ baseUrl: sim.url, model, timeoutMs: 10_000, retries: 1, concurrency: 8 });
          const recs = await runProbeCases(sampled(loaded.cases, 2), {
            client,
            transport,
            template: resolveTemplate({ transport, templateFile: undefined }, '2026-01-15'),
            family: 'auto',
            model,
            injectedDate: '2026-01-15',
          });
          const affected = recs.filter((r) => plantedOn(r.id, cause));
          expect(affected.length, `${transport} ${cause}`).toBeGreaterThan(20);
          expect(affected.filter((r) => r.cause.strict.cause === want).length, `${transport} ${cause}`).toBe(
            affected.length,
          );
          expect(recs.filter((r) => !plantedOn(r.id, cause)).every((r) => r.passed.strict)).toBe(true);
        }
      }
    } finally {
      await sim.close();
    }
  });
});
