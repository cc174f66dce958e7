// The CPython sandbox against pyodide on ToolHop's 182 rows: `npm run bench:sandbox-backends -- [--rounds N]
// [--record NAME] [--data FILE] [--limit N]`. Each round runs the zero-latency ToolHop run (sim:oracle, --concurrency
// 16) once per backend, the backends alternating, and measures wall time and the CPU of the whole process tree,
// sandbox workers included (bench/lib.ts). Prints medians; `--record NAME` writes them to bench/records/NAME.json.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fromRoot } from '../harness/core/paths.ts';
import { accountedRun, quantiles, round } from './lib.ts';
import { writeRecord } from './record.ts';

const shared = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    record: { type: 'string' },
    data: { type: 'string' },
    limit: { type: 'string', default: '182' },
  },
});
const data = values.data ?? (existsSync(shared) ? shared : fromRoot('cases', 'toolhop', 'sample.json'));
const rounds = Number(values.rounds);
const backends = ['pyodide', 'python'] as const;

async function once(backend: (typeof backends)[number]) {
  const out = mkdtempSync(join(tmpdir(), 'bench-sbx-'));
  const args = ['toolhop', '--data', data, '--limit', values.limit, '--model', 'sim:oracle', '--concurrency', '16'];
  const r = await accountedRun(
    fromRoot('bin', 'toolgauge.mjs'),
    [...args, '--sandbox', backend, '--out-dir', out],
    { ...process.env, TOOLHOP_ALLOW_DATASET_EXEC: '1', FORCE_COLOR: '0' } as Record<string, string>,
    tmpdir(),
  );
  rmSync(out, { recursive: true, force: true });
  const accuracy = Number(/accuracy ([\d.]+)/.exec(r.stdout)?.[1] ?? NaN);
  if (r.code !== 0 || accuracy !== 1) throw new Error(`${backend} run failed (exit ${r.code}, accuracy ${accuracy})`);
  return { wallS: r.wallMs / 1000, cpuS: r.cpuS };
}

const runs: Record<string, { wall: number[]; cpu: number[] }> = {
  pyodide: { wall: [], cpu: [] },
  python: { wall: [], cpu: [] },
};
const loads: number[] = [];
for (let i = 0; i < rounds; i++) {
  // Alternate which backend goes first, so neither always runs on the warmer machine.
  for (const b of i % 2 === 0 ? backends : [...backends].reverse()) {
    loads.push(loadavg()[0]!);
    const r = await once(b);
    runs[b]!.wall.push(r.wallS);
    if (r.cpuS !== null) runs[b]!.cpu.push(r.cpuS);
    console.log(`round ${i + 1} ${b}: ${round(r.wallS)} s wall, ${r.cpuS === null ? '?' : round(r.cpuS)} CPU-s`);
  }
}
const figures: Record<string, number> = {
  rounds,
  load1_min: round(Math.min(...loads)),
  load1_max: round(Math.max(...loads)),
};
for (const b of backends) {
  figures[`${b}_wall_ms`] = Math.round(quantiles(runs[b]!.wall).median * 1000);
  if (runs[b]!.cpu.length) figures[`${b}_cpu_ms`] = Math.round(quantiles(runs[b]!.cpu).median * 1000);
}
console.log(JSON.stringify(figures, null, 2));
if (values.record) writeRecord(values.record, figures);
