// ToolHop benchmark: `npx tsx bench/toolhop.ts [--data FILE] [--limit N]` (default: the 182 real rows when
// ../shared/data is present, else the bundled sample). Three runs through the real CLI on the simulator:
//  1. sim:oracle, zero latency: wall time, instances/s, tool calls/s, peak RSS of the whole process tree;
//  2. sim:oracle?latency_ms=200 with --concurrency 16: wall time against the ideal, sum of model latencies / 16;
//  3. the sandbox alone (worker start, warm call median/p95) via harness/sandbox/bench.ts.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { fromRoot } from '../harness/core/paths.ts';
import { writeFileAtomic } from '../harness/core/jsonl.ts';
import { round, timedToolgauge } from './lib.ts';

const shared = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');
const { values } = parseArgs({ options: { data: { type: 'string' }, limit: { type: 'string' }, 'skip-latency': { type: 'boolean' } } });
const data = values.data ?? (existsSync(shared) ? shared : fromRoot('cases', 'toolhop', 'sample.json'));
const limit = values.limit ?? '182';
const env = { ...process.env, TOOLHOP_ALLOW_DATASET_EXEC: '1' } as Record<string, string>;

function traces(out: string): Array<{ started_at: string; wall_ms: number; tool_executions: unknown[]; model_calls: Array<{ latencyMs: number }> }> {
  const dir = join(out, 'traces');
  return readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
}

async function zeroLatency() {
  const out = mkdtempSync(join(tmpdir(), 'bench-th-'));
  const r = await timedToolgauge(['toolhop', '--data', data, '--limit', limit, '--model', 'sim:oracle', '--concurrency', '16', '--out-dir', out], env);
  const ts = traces(out);
  const toolCalls = ts.reduce((s, t) => s + t.tool_executions.length, 0);
  const acc = /accuracy ([\d.]+)/.exec(r.stdout)?.[1];
  return {
    exit: r.code,
    instances: ts.length,
    accuracy: acc ? Number(acc) : null,
    wall_s: round(r.wallMs / 1000),
    instances_per_s: round(ts.length / (r.wallMs / 1000)),
    tool_calls: toolCalls,
    tool_calls_per_s: round(toolCalls / (r.wallMs / 1000)),
    peak_tree_rss_mb: r.peakTreeRssMb,
  };
}

async function latency200() {
  const out = mkdtempSync(join(tmpdir(), 'bench-th-lat-'));
  const r = await timedToolgauge(['toolhop', '--data', data, '--limit', limit, '--model', 'sim:oracle?latency_ms=200', '--concurrency', '16', '--out-dir', out], env);
  const ts = traces(out);
  const latencySum = ts.reduce((s, t) => s + t.model_calls.reduce((a, c) => a + c.latencyMs, 0), 0);
  const ideal = latencySum / 16;
  const start = Math.min(...ts.map((t) => Date.parse(t.started_at)));
  const end = Math.max(...ts.map((t) => Date.parse(t.started_at) + t.wall_ms));
  return {
    exit: r.code,
    model_calls: ts.reduce((s, t) => s + t.model_calls.length, 0),
    ideal_s: round(ideal / 1000),
    run_span_s: round((end - start) / 1000),
    run_span_over_ideal: round((end - start) / ideal),
    process_wall_s: round(r.wallMs / 1000),
    process_wall_over_ideal: round(r.wallMs / ideal),
  };
}

async function sandbox() {
  const r = await execa('npx', ['tsx', fromRoot('harness', 'sandbox', 'bench.ts'), '--calls', '1000', '--starts', '3', '--backend', 'pyodide'], { reject: false, cwd: fromRoot() });
  const text = String(r.stdout);
  try {
    return JSON.parse(text.slice(text.indexOf('{'))) as unknown;
  } catch {
    return text.trim();
  }
}

const result = {
  data,
  limit: Number(limit),
  node: process.version,
  zero_latency: await zeroLatency(),
  ...(values['skip-latency'] ? {} : { latency_200ms_concurrency_16: await latency200() }),
  sandbox: await sandbox(),
};
writeFileAtomic(fromRoot('results', 'bench', 'toolhop.json'), JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify(result, null, 2));
