import type { Sandbox, ToolRef } from '../sandbox/index.ts';
import type { ToolhopRow } from './row.ts';

/**
 * A stand-in for the Python sandbox in tests of the layers above it (agent teams, hand-offs): a hop's tool
 * "returns" that hop's gold intermediate answer, as JSON, without running dataset code. It is not the benchmark:
 * real runs execute the dataset's functions.
 */
export function goldSandbox(rows: (id: string) => ToolhopRow | undefined): Sandbox {
  let calls = 0;
  return {
    backend: 'python',
    async call(tool: ToolRef) {
      calls++;
      const row = rows(String(tool.rowId));
      const value = row ? Object.values(row.sub_task)[tool.index] : undefined;
      if (value === undefined)
        return { kind: 'not_found', message: `no hop ${tool.index} in row ${tool.rowId}`, durationMs: 0 };
      return { kind: 'ok', content: JSON.stringify(value), durationMs: 0 };
    },
    async checkLoad() {
      return { ok: true };
    },
    async warm() {},
    stats: () => ({ workers: 0, starts: 0, restarts: 0, calls, recycled: 0 }),
    info: () => ({ backend: 'python', confinement: [], lastReady: null, peakRssBytes: 0, workerPids: [] }),
    async close() {},
  };
}
