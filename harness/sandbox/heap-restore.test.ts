// The pyodide worker's heap restore between rows, with the saved state kept sparsely (its zero blocks left out) and
// the snapshot copied into a fresh heap block by block: what a row leaves behind — below the saved break, or in heap
// the row grew — never reaches another row, and the worker is not replaced for it. (A row's own later call may
// start from the saved state too: the worker restores once it has been idle for a moment.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type ToolOutcome, type ToolRef } from './index.ts';

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
  let sb: Sandbox;
  beforeAll(async () => {
    // One worker: every row below is served by the same interpreter.
    sb = createSandbox({ backend: 'pyodide', poolSize: 1, callTimeoutMs: 30_000 });
    await sb.warm();
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
  });

  it('keeps only the non-zero part of the heap it restores', () => {
    const ready = sb.info().lastReady as { restore?: boolean; restoreBytes?: number; savedBytes?: number };
    expect(ready.restore).toBe(true);
    expect(ready.savedBytes).toBeGreaterThan(0);
    expect(ready.savedBytes).toBeLessThan(ready.restoreBytes!);
  });

  it("a row's small and large leftovers never reach another row", async () => {
    // 64 MiB grows the heap well past the saved break; 1 MiB stays within the interpreter's free space.
    expect(value(await sb.call(tool('a', 'leave'), '{"value": "from a", "mib": 64}'))).toEqual([
      'from a',
      64 * 2 ** 20,
    ]);
    expect(value(await sb.call(tool('b', 'peek'), '{}'))).toEqual([null, null]);
    expect(value(await sb.call(tool('b', 'leave'), '{"value": "from b", "mib": 1}'))).toEqual(['from b', 2 ** 20]);
    expect(value(await sb.call(tool('c', 'peek'), '{}'))).toEqual([null, null]);
    expect(value(await sb.call(tool('a', 'peek'), '{}'))).toEqual([null, null]);
    expect(sb.stats()).toMatchObject({ recycled: 0 });
  });
});
