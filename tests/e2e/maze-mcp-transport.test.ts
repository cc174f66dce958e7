import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSuite } from '../../harness/launch/run-suite.ts';
import type { MazeMeta } from '../../harness/maze/meta.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { tempDir } from '../helpers/cli.ts';

// `--tool-transport mcp`: the built-in agent reaches the tools over MCP, from a server per run, instead of in
// process. On the simulator's policies the two transports must give the same runs: per instance the same verdict,
// recovery and cost, the same calls with the same results and perturbations, and the same TSR / PRR / RC. In
// process (runSuite), real HTTP to the simulator and to each run's MCP server on loopback.

const ONLY = 'C1_task_001,C3_task_002,C4_task_001';

async function run(model: string, transport: 'in-process' | 'mcp') {
  const r = await runSuite(mazeSuite, {
    TOOLGAUGE_MODEL: model,
    TOOLGAUGE_MAZE_ONLY: ONLY,
    TOOLGAUGE_MAZE_TOOL_TRANSPORT: transport,
    TOOLGAUGE_OUT_DIR: tempDir(`maze-mcp-${transport}`),
  });
  const byId = new Map(r.metas.map((m) => [m.id, m]));
  return { r, byId };
}

/** What a run is judged on, and the calls it made as the judge read them. */
function outcome(outDir: string, m: MazeMeta) {
  const inference = JSON.parse(readFileSync(join(outDir, m.trace!), 'utf8')) as {
    trace: Array<{ name: string; args: unknown; result: unknown; status: string; call_id: string }>;
    final_answer: string | null;
    messages: Array<{ role: string; content: unknown }>;
    tool_transport?: string;
  };
  return {
    pass: m.pass,
    hit: m.hit,
    rc: m.rc,
    c_act: m.c_act,
    c_oracle: m.c_oracle,
    recovery: m.recovery,
    failure_reason: m.failure_reason,
    tool_calls: m.tool_calls,
    error: m.error ?? null,
    calls: inference.trace.map((e) => ({
      id: e.call_id,
      name: e.name,
      args: e.args,
      result: e.result,
      status: e.status,
    })),
    final_answer: inference.final_answer,
    // What the model was shown of each result: the MCP result's text is the in-process tool message.
    tool_messages: inference.messages.filter((x) => x.role === 'tool').map((x) => x.content),
  };
}

/** Each inference file says how its agent reached the tools. */
const transportOf = (outDir: string, m: MazeMeta) =>
  (JSON.parse(readFileSync(join(outDir, m.trace!), 'utf8')) as { tool_transport?: string }).tool_transport ??
  'in-process';

describe('toolgauge maze --tool-transport mcp', () => {
  it.each(['sim:oracle', 'sim:naive'])('on %s gives the in-process runs, instance by instance', async (model) => {
    const local = await run(model, 'in-process');
    const mcp = await run(model, 'mcp');
    expect(mcp.byId.size).toBe(15);
    expect([...mcp.byId.keys()].sort()).toEqual([...local.byId.keys()].sort());
    for (const [id, m] of local.byId) {
      expect(transportOf(mcp.r.outDir, mcp.byId.get(id)!), id).toBe('mcp');
      expect(transportOf(local.r.outDir, m), id).toBe('in-process');
      expect(outcome(mcp.r.outDir, mcp.byId.get(id)!), id).toEqual(outcome(local.r.outDir, m));
    }
    // Perturbations were met, so the comparison covers the server's injection, not only clean calls.
    expect([...mcp.byId.values()].filter((m) => m.hit).length).toBeGreaterThanOrEqual(9);
    const metrics = (s: typeof local.r.finalized) => JSON.stringify(s.summary.metrics);
    expect(metrics(mcp.r.finalized)).toBe(metrics(local.r.finalized));
    // The run's header records the transport.
    expect(mcp.r.finalized.summary.config).toMatchObject({ tool_transport: 'mcp' });
    expect(local.r.finalized.summary.config).toMatchObject({ tool_transport: 'in-process' });
  });
});
