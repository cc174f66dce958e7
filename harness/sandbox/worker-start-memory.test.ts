// The pyodide worker's start from the memory snapshot: the snapshot's bytes go from the inherited descriptor into the
// wasm heap block by block, so the worker never holds the whole file in memory on top of the heap it fills. What
// would show it: the process's peak resident set (VmHWM) well above its resident set once ready, when the saved
// state has been allocated and the leftovers of loading collected (reading the whole 25 MiB file first left the
// peak 20-28 MiB above; read by blocks, 0-7 MiB). And its malloc heap, which the optimizing compiler's work on the
// interpreter used to leave about 10 MiB larger for good.
//
// And the worker's heap restore between rows, with the saved state kept sparsely (its zero blocks left out) and the
// snapshot copied into a fresh heap block by block: what a row leaves behind — below the saved break, or in heap the
// row grew — never reaches another row, and the worker is not replaced for it. (A row's own later call may start from
// the saved state too: the worker restores once it has been idle for a moment.) Both on one worker, started once.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type ToolOutcome, type ToolRef } from './index.ts';

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

/** Resident size (MiB) of the process's malloc heap, the `[heap]` mapping (0 when it has none). */
function mallocHeapMib(pid: number): number {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const at = smaps.search(/ \[heap\]\n/);
  if (at < 0) return 0;
  const m = /^Rss:\s+(\d+) kB/m.exec(smaps.slice(at));
  if (!m) throw new Error(`/proc/${pid}/smaps: no Rss for [heap]`);
  return Number(m[1]) / 1024;
}

function statusMib(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(m[1]) / 1024;
}

// One worker: every row below is served by the same interpreter, the one whose start is measured.
let sb: Sandbox;
/** The worker's peak and current resident set (MiB) once ready, before any call. */
let ready: { peak: number; now: number };
beforeAll(async () => {
  if (process.platform !== 'linux') return;
  sb = createSandbox({ backend: 'pyodide', poolSize: 1, callTimeoutMs: 30_000 });
  await sb.warm();
  const pid = workerProcess(sb.info().workerPids[0]!);
  ready = { peak: statusMib(pid, 'VmHWM'), now: statusMib(pid, 'VmRSS') };
}, 120_000);
afterAll(async () => {
  await sb?.close();
});

describe.runIf(process.platform === 'linux')('pyodide worker start from the snapshot', () => {
  it('peaks near its resident set once ready: the snapshot file is never held whole', () => {
    expect((sb.info().lastReady as { snapshot?: boolean }).snapshot).toBe(true);
    expect(ready.peak - ready.now).toBeLessThan(12);
  });

  // The worker runs wasm on V8's baseline compiler only. When the optimizing compiler recompiled the interpreter's
  // eval loop (during the start, and at the latest under a loop like this one), its ~20 MB of short-lived
  // allocations left the malloc heap at 19-22 MiB for the worker's life; without it, about 11.
  it('keeps a small malloc heap through a Python loop: no optimizing recompilation of the interpreter', async () => {
    const spin = 'def spin(n: int) -> int:\n    s = 0\n    for i in range(n):\n        s += i * i % 7\n    return s\n';
    const out = await sb.call({ rowId: 'spin', index: 0, name: 'spin', sources: [spin] }, '{"n": 2000000}');
    expect(out).toMatchObject({ kind: 'ok', content: String(sumOfSquaresMod7(2_000_000)) });
    const pid = workerProcess(sb.info().workerPids[0]!);
    expect(mallocHeapMib(pid)).toBeLessThan(16);
  }, 60_000);
});

/** The tool's result, computed here: sum of i*i % 7 for i below n. */
function sumOfSquaresMod7(n: number): number {
  // i*i % 7 repeats with period 7: 0, 1, 4, 2, 2, 4, 1
  const cycle = [0, 1, 4, 2, 2, 4, 1];
  let s = Math.floor(n / 7) * 14;
  for (let i = 0; i < n % 7; i++) s += cycle[i]!;
  return s;
}

// `math` is the module the runtime hands every row: what is set on it lives as long as the interpreter's state does.
const TOOLS = `
def leave(value, mib):
    math.row_mark = value
    math.row_blob = bytearray([7]) * (mib * 1048576)
    return [value, len(math.row_blob)]


def peek():
    try:
        return [math.row_mark, len(math.row_blob)]
    except Exception:
        return [None, None]
`;

const tool = (rowId: string, name: string): ToolRef => ({ rowId, index: 0, name, sources: [TOOLS] });

function value(o: ToolOutcome): unknown {
  if (o.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(o).slice(0, 300)}`);
  return JSON.parse(o.content);
}

describe.runIf(process.platform === 'linux')('pyodide heap restore between rows', () => {
  it('keeps only the non-zero part of the heap it restores', () => {
    const info = sb.info().lastReady as { restore?: boolean; restoreBytes?: number; savedBytes?: number };
    expect(info.restore).toBe(true);
    expect(info.savedBytes).toBeGreaterThan(0);
    expect(info.savedBytes).toBeLessThan(info.restoreBytes!);
  });

  it("a row's small and large leftovers never reach another row", async () => {
    const recycled = sb.stats().recycled;
    // 64 MiB grows the heap well past the saved break; 1 MiB stays within the interpreter's free space.
    expect(value(await sb.call(tool('a', 'leave'), '{"value": "from a", "mib": 64}'))).toEqual([
      'from a',
      64 * 2 ** 20,
    ]);
    expect(value(await sb.call(tool('b', 'peek'), '{}'))).toEqual([null, null]);
    expect(value(await sb.call(tool('b', 'leave'), '{"value": "from b", "mib": 1}'))).toEqual(['from b', 2 ** 20]);
    expect(value(await sb.call(tool('c', 'peek'), '{}'))).toEqual([null, null]);
    expect(value(await sb.call(tool('a', 'peek'), '{}'))).toEqual([null, null]);
    expect(sb.stats().recycled).toBe(recycled);
  });
});
