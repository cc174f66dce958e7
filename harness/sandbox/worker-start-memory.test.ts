// The pyodide worker's start from the memory snapshot: the snapshot's bytes go from the inherited descriptor into the
// wasm heap block by block, so the worker never holds the whole file in memory on top of the heap it fills. What
// would show it: the process's peak resident set (VmHWM) well above its resident set once ready, when the saved
// state has been allocated and the leftovers of loading collected (reading the whole 25 MiB file first left the
// peak 20-28 MiB above; read by blocks, 0-7 MiB).
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from './index.ts';

/** The worker's Node process: `root` itself or the process under it (the confinement may fork once) running the worker file. */
function workerProcess(root: number): number {
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    const pid = tree[i]!;
    if (
      readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .some((a) => a.endsWith('pyodide-worker.mjs'))
    )
      return pid;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const kids = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (kids) tree.push(...kids.split(/\s+/).map(Number));
    }
  }
  throw new Error(`no pyodide worker process under pid ${root}`);
}

function statusMib(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(m[1]) / 1024;
}

describe.runIf(process.platform === 'linux')('pyodide worker start from the snapshot', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = createSandbox({ backend: 'pyodide', poolSize: 1 });
    await sb.warm();
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
  });

  it('peaks near its resident set once ready: the snapshot file is never held whole', () => {
    expect((sb.info().lastReady as { snapshot?: boolean }).snapshot).toBe(true);
    const pid = workerProcess(sb.info().workerPids[0]!);
    const peak = statusMib(pid, 'VmHWM');
    const now = statusMib(pid, 'VmRSS');
    expect(peak - now).toBeLessThan(12);
  });
});
