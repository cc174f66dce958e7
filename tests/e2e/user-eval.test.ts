import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatBody, SimReply } from '../../harness/api/index.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { validSummary } from '../../harness/report/summary.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { cleanEnv, readJson, readLines, tempDir } from '../helpers/cli.ts';

// The public API as a user meets it: the README's 30-line eval file, in a fresh folder that depends on toolgauge,
// run against an OpenAI-compatible endpoint (here a simulator with this test's own arithmetic responder).

/** A model that does arithmetic with the offered tools; `sloppy` answers additions one off, without tools. */
function arithmetic(sloppy: boolean) {
  return (body: ChatBody): SimReply => {
    const user = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
    const [, a, op, b] = /(\d+)\s+(times|plus)\s+(\d+)/.exec(user) ?? [];
    if (sloppy && op === 'plus') return { content: `<answer>${Number(a) + Number(b) + 1}</answer>` };
    const result = body.messages.find((m) => m.role === 'tool');
    if (result) return { content: `It is <answer>${result.content}</answer>.` };
    const name = op === 'times' ? 'multiply' : 'add';
    return { content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name, arguments: JSON.stringify({ a: Number(a), b: Number(b) }) } }] };
  };
}

let good: SimServer;
let sloppy: SimServer;
beforeAll(async () => {
  good = await startSimServer({ responders: { arith: { chat: (_s, body) => arithmetic(false)(body) } } });
  sloppy = await startSimServer({ responders: { arith: { chat: (_s, body) => arithmetic(true)(body) } } });
});
afterAll(async () => {
  await good.close();
  await sloppy.close();
});

describe('a user eval file in a fresh folder (describeEval from toolgauge)', () => {
  it('runs against an endpoint: summary with pass_rate and each scorer, report, gate, and report --compare', async () => {
    const dir = tempDir('user-eval');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-evals', private: true, type: 'module' }));
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(fromRoot(), join(dir, 'node_modules', 'toolgauge'));
    copyFileSync(fromRoot('examples', 'arith', 'arith.eval.ts'), join(dir, 'arith.eval.ts'));
    const run = (url: string, out: string, gate: string) =>
      execa('node', [fromRoot('bin', 'toolgauge.mjs'), 'eval', 'arith.eval.ts', '--base-url', url, '--model', 'arith-model', '--out-dir', out, '--gate', gate], { cwd: dir, env: cleanEnv(), extendEnv: false, reject: false, timeout: 240_000 });

    const a = await run(good.url, 'results/good', 'pass_rate>=1');
    expect(a.exitCode, `${a.stdout}\n${a.stderr}`).toBe(0);
    const s = validSummary(readJson(join(dir, 'results/good/summary.json')));
    expect(s.suite).toBe('arith');
    expect(s.metrics.pass_rate).toMatchObject({ value: 1, n: 3 });
    expect(s.metrics.answer_matches).toMatchObject({ value: 1, n: 3 });
    expect(s.metrics.used_a_tool).toMatchObject({ value: 1, n: 3 });
    for (const m of ['pass_rate', 'answer_matches', 'used_a_tool']) expect(s.metrics[m]).toHaveProperty('lo');
    expect(s.gate?.passed).toBe(true);
    // One record per data row, by the row's own id (Vitest lists tests by name only when they fail or are slow).
    expect(readLines<{ id: string }>(join(dir, 'results/good/instances.jsonl')).map((r) => r.id).sort()).toEqual(['add-1', 'mul-1', 'mul-2']);
    expect(a.stdout).toMatch(/gate pass_rate>=1: PASSED/);
    expect(readFileSync(join(dir, 'results/good/report.md'), 'utf8')).toMatch(/\| pass_rate \| 1\.000 \[/);

    const b = await run(sloppy.url, 'results/sloppy', 'pass_rate>=1');
    expect(b.exitCode).toBe(1);
    const t = validSummary(readJson(join(dir, 'results/sloppy/summary.json')));
    expect(t.metrics.pass_rate).toMatchObject({ n: 3 });
    expect(t.metrics.pass_rate!.value).toBeCloseTo(2 / 3, 6);
    expect(t.metrics.used_a_tool!.value).toBeCloseTo(2 / 3, 6);
    expect(readFileSync(join(dir, 'results/sloppy/report.md'), 'utf8')).toMatch(/\*\*add-1\*\*: answer_matches: expected '42', answered '43'/);

    const cmp = await execa('node', [fromRoot('bin', 'toolgauge.mjs'), 'report', 'results/good', 'results/sloppy', '--compare', '--out-dir', 'results/compare'], { cwd: dir, env: cleanEnv(), extendEnv: false, reject: false });
    expect(cmp.exitCode, cmp.stderr).toBe(0);
    const md = readFileSync(join(dir, 'results/compare/comparison.md'), 'utf8');
    expect(md).toMatch(/\| pass_rate \| 1\.000 \| 0\.667 \|/);
  });
});
