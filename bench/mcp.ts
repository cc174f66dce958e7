// `npm run bench:mcp`: what an MCP server's tool costs per call against the same tool in process. One stdio server
// (tests/fixtures/mcp/hostile-server.mjs, its `echo` tool, a few bytes each way) reached through toolgauge's
// `mcp()` — the EvalTool a describeEval's loop calls — against an EvalTool whose `run` echoes in this process.
// Calls one after another (the loop's case: one call awaited at a time); rounds alternate the two sides; per-call
// figures are medians over the rounds, in microseconds. Also the server's start (spawn, handshake, tool list).
// Writes bench/records/mcp.json (docs/benchmarks.md reads its figures).
//
//   --calls N    calls per side per round (default 2000)   --rounds R   (default 7)
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { RunConfig } from '../harness/core/config.ts';
import type { EvalTool } from '../harness/kit/eval/types.ts';
import { mcp } from '../harness/mcp/source.ts';
import { quantiles, round } from './lib.ts';
import { writeRecord } from './record.ts';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '7' } },
});
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const SERVER = fileURLToPath(new URL('../tests/fixtures/mcp/hostile-server.mjs', import.meta.url));

const local: EvalTool = { name: 'echo', run: async ({ text }) => String(text) };

/** Microseconds per call over `calls` sequential calls. */
async function perCall(tool: EvalTool): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const out = await tool.run({ text: `call ${i}` });
    if (out !== `call ${i}`) throw new Error(`echo answered ${String(out)}`);
  }
  return Number(process.hrtime.bigint() - t0) / 1000 / calls;
}

const starts: number[] = [];
const remote: number[] = [];
const inProcess: number[] = [];
for (let r = 0; r < rounds; r++) {
  const source = mcp({ command: process.execPath, args: [SERVER], name: 'bench' });
  const t0 = process.hrtime.bigint();
  const lease = await source.acquire({} as RunConfig);
  starts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  const echo = lease.tools.find((t) => t.name === 'echo')!;
  await perCall(echo); // warm-up: the first calls compile the paths on both sides
  if (r % 2) {
    inProcess.push(await perCall(local));
    remote.push(await perCall(echo));
  } else {
    remote.push(await perCall(echo));
    inProcess.push(await perCall(local));
  }
  await lease.release();
  await source.close();
}

const med = (xs: number[]) => quantiles(xs).median;
const figures = {
  mcp_stdio_call_us: round(med(remote), 1),
  in_process_call_us: round(med(inProcess), 2),
  overhead_us: round(med(remote) - med(inProcess), 1),
  server_start_ms: round(med(starts), 1),
  calls_per_round: calls,
  rounds,
};
console.log(JSON.stringify(figures, null, 2));
console.log(`per-call overhead ${figures.overhead_us} µs (target under 2000 µs)`);
writeRecord('mcp', figures);
