import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { resolvePythonPath } from './python-backend.ts';
import { createSandbox, type Sandbox } from './index.ts';

// The sandbox fixes str hashing (PYTHONHASHSEED=0), so a tool that returns a set's iteration order gives the
// same answer on every run. The oracle is the same interpreter started on its own with PYTHONHASHSEED=0.
const WORDS = ['m', 'i', 'a', 'r', 'delta', 'kilo', 'oscar', 'sierra', 'tango', 'victor', 'whiskey', 'zulu'];
const SOURCE = `def set_order():\n    return list(set(${JSON.stringify(WORDS)}))\n`;
const tool = { rowId: 'hash-seed', index: 0, name: 'set_order', sources: [SOURCE] };

describe('the sandbox hashes str with seed 0', () => {
  const made: Sandbox[] = [];
  afterAll(async () => {
    await Promise.all(made.map((s) => s.close()));
  });

  const setOrder = async (backend: 'python' | 'pyodide'): Promise<string[]> => {
    const sb = createSandbox({ backend, poolSize: 1, callTimeoutMs: 15_000 });
    made.push(sb);
    const out = await sb.call(tool, '{}');
    expect(out.kind, `${backend}: ${JSON.stringify(out)}`).toBe('ok');
    return JSON.parse((out as { content: string }).content) as string[];
  };

  it("two fresh CPython sandboxes give a set's order as python3 with PYTHONHASHSEED=0 does", async () => {
    const python = resolvePythonPath(undefined, {});
    const oracle = await execa(python, ['-c', `print(list(set(${JSON.stringify(WORDS)})))`], {
      env: { PYTHONHASHSEED: '0' },
      extendEnv: false,
    });
    const want = JSON.parse(oracle.stdout.replace(/'/g, '"')) as string[];
    expect(await setOrder('python')).toEqual(want);
    expect(await setOrder('python')).toEqual(want);
  });

  it('two fresh pyodide sandboxes give the same set order (a 32-bit hash: its own order, fixed)', async () => {
    expect(await setOrder('pyodide')).toEqual(await setOrder('pyodide'));
  });
});
