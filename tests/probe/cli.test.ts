import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import type { ProbeRecord } from '../../harness/probe/run/types.ts';
import { SIM_DROPPING_TEMPLATE } from '../../harness/probe/sim-responder.ts';
import { SummarySchema } from '../../harness/report/summary.ts';
import { inProcess, readJson, readLines, tempDir, toolgauge } from '../helpers/cli.ts';

describe('toolgauge probe (CLI)', () => {
  it('bad flags and bad case files: one line naming the flag, the file, line and field; exit 2', async () => {
    const dir = tempDir('probe-bad');
    writeFileSync(
      join(dir, 'tools.json'),
      JSON.stringify([{ name: 'f', parameters: { type: 'object', properties: {} } }]),
    );
    writeFileSync(
      join(dir, 'cases.jsonl'),
      `${JSON.stringify({ id: 'a', cat: 'C1', tools: ['f'], turns: [{ role: 'user', content: 'q' }], expected: null })}\n${JSON.stringify({ id: 'b', cat: 'C1', tools: ['f'], turns: [{ role: 'robot', content: 'q' }], expected: null })}\n`,
    );
    // Each is refused before any run starts: the CLI's own code, in this process, one after the other.
    const transport = await inProcess(['probe', '--transport', 'grpc'], {});
    const missing = await inProcess(['probe', '--cases', '/nonexistent/cases.jsonl'], {});
    const bad = await inProcess(['probe', '--cases', join(dir, 'cases.jsonl')], {});
    const real = await inProcess(
      ['probe', '--transport', 'completions', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'some-model'],
      {},
    );
    const model = await inProcess(['probe', '--model', 'sim:fault?cause=typo'], {});
    expect([transport.code, transport.stderr.trim()]).toEqual([
      2,
      "toolgauge probe: --transport must be one of chat|completions (got 'grpc')",
    ]);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      2,
      "toolgauge probe: --cases '/nonexistent/cases.jsonl' does not exist",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^toolgauge probe: .*cases\.jsonl: row 2 \(b\): field turns\[0\]\.role: /);
    expect([real.code, real.stderr.trim()]).toEqual([
      2,
      "toolgauge probe: --transport completions renders the model's own chat template: pass --template FILE",
    ]);
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/--model sim:fault: option 'cause'/);
  });

  it('probe lint: the bundled cases are clean; a leaking set fails with the offending value', async () => {
    const ok = await inProcess(['probe', 'lint'], {});
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/312 cases; 0 error\(s\), 0 warning\(s\)/);
    const dir = tempDir('probe-lint');
    const row = (id: string, split: string, city: string) => ({
      id,
      cat: 'C1',
      split,
      tools: ['get_weather'],
      turns: [{ role: 'user', content: `Weather in ${city} (${id})?` }],
      expected: { tool: 'get_weather', args: { location: city } },
      slots: { city },
    });
    writeFileSync(
      join(dir, 'cases.jsonl'),
      [row('a', 'dev', 'Oslo'), row('b', 'test', 'Oslo')].map((r) => JSON.stringify(r)).join('\n'),
    );
    const leak = await inProcess(
      ['probe', 'lint', '--cases', join(dir, 'cases.jsonl'), '--tools', fromRoot('cases', 'probe', 'tools.json')],
      {},
    );
    expect(leak.code).toBe(1);
    expect(leak.stdout).toMatch(/error \[leakage\] a: value 'oslo' appears in dev \(a\) and test \(b\)/);
  });

  it('counterfactual blame end to end: chat, the server template drops prior calls, --template names it', async () => {
    const out = tempDir('probe-cf');
    // Not inside --out-dir: a fresh run empties it.
    const tpl = join(tempDir('probe-cf-template'), 'server-template.jinja');
    writeFileSync(tpl, SIM_DROPPING_TEMPLATE);
    const r = await toolgauge([
      'probe',
      '--model',
      'sim:fault?cause=template_bug',
      '--template',
      tpl,
      '--categories',
      'C6,C1',
      '--split',
      'test',
      '--out-dir',
      out,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const recs = readLines<ProbeRecord>(join(out, 'cases.jsonl'));
    expect(recs).toHaveLength(40);
    const c6 = recs.filter((x) => x.cat === 'C6');
    expect(c6).toHaveLength(20);
    for (const x of c6) {
      expect(x.cause.strict).toMatchObject({ cause: 'framework_template_bug', kind: 'template_flip' });
      expect(x.counterfactual?.passed).toEqual({ strict: true, lenient: true });
      expect(x.template_findings).toContain('prior_tool_call_dropped');
    }
    expect(recs.filter((x) => x.cat === 'C1').every((x) => x.passed.strict && !x.counterfactual)).toBe(true);
    const summary = SummarySchema.parse(readJson(join(out, 'summary.json')));
    expect(summary.header.template_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.counts).toMatchObject({ counterfactuals: 20, template_flips: 20 });
    // Failing tests name the case and carry the cause: the Vitest output shows them.
    expect(r.stdout + r.stderr).toMatch(/probe › C6 › c6_\w+_test_\d{3}/);
  });
});
