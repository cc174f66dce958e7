import { describe, expect, it } from 'vitest';
import { autoSandbox, routeOf } from './auto.ts';
import type { CPythonProbe } from './cpython-probe.ts';
import type { Sandbox, ToolRef } from './index.ts';
import { connectSandbox, serveSandbox } from './remote.ts';

/** A stand-in backend that answers every call with its own name. */
function fake(name: 'pyodide' | 'python', made: string[]): Sandbox {
  made.push(name);
  let calls = 0;
  return {
    backend: name,
    async call() {
      calls++;
      return { kind: 'ok', content: JSON.stringify(name), durationMs: 0 };
    },
    async checkLoad() {
      return { ok: true };
    },
    async warm() {},
    stats: () => ({ workers: 1, starts: 1, restarts: 0, calls, recycled: 0 }),
    info: () => ({ backend: name, confinement: [], workerPids: [], lastReady: null, peakRssBytes: 0 }),
    async close() {},
  };
}

const NUMPY = 'def f():\n    import numpy\n    return 1\n';
const PLAIN = 'def g():\n    import json\n    return 2\n';
const ref = (rowId: string, sources: string[]): ToolRef => ({ rowId, index: 0, name: 'f', sources });

function make(probe: CPythonProbe) {
  const made: string[] = [];
  const probes: string[][] = [];
  const sb = autoSandbox({
    pyodide: () => fake('pyodide', made),
    python: () => fake('python', made),
    probe: async (modules) => {
      probes.push(modules);
      return probe;
    },
    callTimeoutMs: 10_000,
  });
  return { sb, made, probes };
}

describe('the auto sandbox', () => {
  it('sends each row to the backend its imports need, starting CPython and probing it only when a row needs it', async () => {
    const { sb, made, probes } = make({ ok: true, version: '3.11.2' });
    expect(await sb.call(ref('a', [PLAIN]), '{}')).toMatchObject({ content: '"pyodide"' });
    expect(made).toEqual(['pyodide']);
    expect(probes).toEqual([]);
    expect(await sb.route!(ref('b', [PLAIN, NUMPY]))).toEqual({ backend: 'python', needs: ['numpy'] });
    expect(await sb.call(ref('b', [PLAIN, NUMPY]), '{}')).toMatchObject({ content: '"python"' });
    expect(await sb.call(ref('c', [NUMPY]), '{}')).toMatchObject({ content: '"python"' });
    // One probe per module set, one pool per backend.
    expect(probes).toEqual([['numpy']]);
    expect(made).toEqual(['pyodide', 'python']);
    expect(sb.stats().calls).toBe(3);
  });

  it('without a CPython that imports them, such rows are unavailable (with why), and others still run', async () => {
    const { sb, made } = make({ ok: false, reason: '/x/python3: spawn /x/python3 ENOENT' });
    const r = await sb.route!(ref('b', [NUMPY]));
    expect(r).toMatchObject({ backend: null, needs: ['numpy'] });
    expect(r.backend === null && r.reason).toMatch(/import numpy, which the pyodide sandbox cannot run .* ENOENT/);
    expect(await sb.call(ref('b', [NUMPY]), '{}')).toMatchObject({ kind: 'unavailable' });
    expect(await sb.checkLoad(ref('b', [NUMPY]))).toMatchObject({ ok: false });
    expect(await sb.call(ref('a', [PLAIN]), '{}')).toMatchObject({ content: '"pyodide"' });
    expect(made).toEqual(['pyodide']);
  });

  it('answers routes over the served socket as in process; a sandbox without route runs rows in its backend', async () => {
    const { sb } = make({ ok: true, version: '3.11.2' });
    const server = await serveSandbox(sb);
    const client = connectSandbox(server, 'auto');
    try {
      expect(await client.route!(ref('b', [NUMPY]))).toEqual({ backend: 'python', needs: ['numpy'] });
      expect(await routeOf(client, ref('a', [PLAIN]))).toEqual({ backend: 'pyodide', needs: [] });
    } finally {
      await client.close();
      await server.close();
    }
    const { route: _r, ...plain } = fake('python', []);
    expect(await routeOf(plain, ref('b', [NUMPY]))).toEqual({ backend: 'python', needs: [] });
  });
});
