// A probe method from a user's module, the way `--method-module FILE` adds one: the module (written here) renames
// every tool, the simulated model calls the tools by the names it is shown, and the method's mapping back is what
// lets the arm score as the baseline does. In process: the kit's settings, sessions and finalize, HTTP to the
// simulator.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { loadMethodModule, methodNames, registerMethod } from '../../harness/methods/registry.ts';
import { readProbeEnv } from '../../harness/probe/run/env.ts';
import { probeSuite } from '../../harness/probe/suite.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-method-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The throwaway method: every tool presented as `u_<name>`, calls mapped back by dropping the prefix.
const MODULE = `
export default {
  name: 'prefixed',
  description: 'presents every tool as u_<name>',
  async prepare(req, ctx) {
    const tools = req.tools.map((t) => ({ ...t, function: { ...t.function, name: 'u_' + t.function.name } }));
    return {
      request: { tools, messages: req.messages },
      toOriginal: (c) => ({ ...c, name: c.name.startsWith('u_') ? c.name.slice(2) : c.name }),
      meta: { presented: tools.map((t) => t.function.name), seed: ctx.seed },
    };
  },
};
`;
const ONLY = 'c1_weather_dev_000,c1_weather_dev_001,c1_stock_dev_000,c1_stock_dev_001,c2_sms_dev_000,c2_sms_dev_001';

describe('a probe method from a user module', () => {
  it('runs as an arm beside the baseline: presented renamed, mapped back, compared on the same cases', async () => {
    const file = join(dir, 'prefixed.mjs');
    writeFileSync(file, MODULE);
    const out = join(dir, 'out');
    const run = await runSuite(probeSuite, {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_PROBE_ONLY: ONLY,
      TOOLGAUGE_PROBE_METHOD: 'baseline,prefixed',
      TOOLGAUGE_PROBE_METHOD_MODULE: file,
      TOOLGAUGE_OUT_DIR: out,
    });
    expect(run.finalized.harnessErrors).toBe(0);
    const mine = run.metas.filter((m) => (m as { arm?: { method: string } }).arm?.method === 'prefixed');
    expect(mine).toHaveLength(6);
    const lines = readFileSync(join(out, 'cases.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            arm: { method: string };
            method_meta: { method: string; meta: { presented: string[] } } | null;
            passed: { strict: boolean };
          },
      );
    const prefixed = lines.filter((l) => l.arm.method === 'prefixed');
    expect(prefixed).toHaveLength(6);
    // the module's own decision is in the record, and every call scored on the original names
    expect(prefixed.every((l) => l.method_meta!.meta.presented.every((n) => n.startsWith('u_')))).toBe(true);
    expect(prefixed.every((l) => l.passed.strict)).toBe(true);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      config: { axes: { method: string[]; method_module: { file: string; sha256: string } } };
      extra: { method_comparisons: Array<{ a: string; b: string; rows: Array<{ metric: string; verdict: string }> }> };
    };
    expect(summary.config.axes.method).toEqual(['baseline', 'prefixed']);
    expect(summary.config.axes.method_module.file).toBe(file);
    expect(summary.extra.method_comparisons[0]).toMatchObject({ a: 'baseline', b: 'prefixed' });
    expect(summary.extra.method_comparisons[0]!.rows.find((r) => r.metric === 'accuracy')!.verdict).toBe(
      'no credible change',
    );
    expect(methodNames()).toEqual(['baseline', 'pa_tool', 'prefixed']);
  });

  it('refuses an unknown method without a module, a module no method names, a built-in name and a module without a method', async () => {
    expect(() => readProbeEnv({ TOOLGAUGE_PROBE_METHOD: 'baseline,mine' })).toThrow(
      "--method: 'mine' is not one of baseline, pa_tool (another method comes with --method-module FILE)",
    );
    expect(() => readProbeEnv({ TOOLGAUGE_PROBE_METHOD: 'baseline', TOOLGAUGE_PROBE_METHOD_MODULE: 'x.mjs' })).toThrow(
      /--method-module: name the method it registers in --method/,
    );
    expect(() =>
      registerMethod({ name: 'pa_tool', prepare: async (r) => ({ request: r, toOriginal: (c) => c, meta: {} }) }),
    ).toThrow(/built in/);
    const empty = join(dir, 'empty.mjs');
    writeFileSync(empty, 'export const x = 1;\n');
    await expect(loadMethodModule(pathToFileURL(empty).href)).rejects.toThrow(/no default export/);
  });
});
