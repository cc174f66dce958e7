// `--sandbox auto`: each row's tools run in pyodide unless its sources import what pyodide cannot run (route.ts),
// then in the CPython backend when the run's interpreter can import those modules (cpython-probe.ts). A row with no
// CPython to run in gets `unavailable` outcomes and a route with `backend: null`, which the suite counts as an
// environment error. A row's calls all go to one backend, so its state semantics stay those of that backend.
import { createHash } from 'node:crypto';
import type { CPythonProbe } from './cpython-probe.ts';
import type { RowRoute, Sandbox, SandboxInfo, ToolRef } from './index.ts';
import { routeRow } from './route.ts';

export interface AutoParts {
  pyodide: () => Sandbox;
  python: () => Sandbox;
  /** Whether CPython imports these modules (asked once per module set). */
  probe: (modules: string[]) => Promise<CPythonProbe>;
  /** The per-call time limit, which decides whether sympy can load in pyodide. */
  callTimeoutMs: number;
}

export function autoSandbox(parts: AutoParts): Sandbox {
  let pyodide: Sandbox | undefined;
  let python: Sandbox | undefined;
  const routes = new Map<string, Promise<RowRoute>>();
  const probes = new Map<string, Promise<CPythonProbe>>();
  const backendOf = (b: 'pyodide' | 'python') =>
    b === 'pyodide' ? (pyodide ??= parts.pyodide()) : (python ??= parts.python());

  const route = (tool: Pick<ToolRef, 'rowId' | 'sources'>): Promise<RowRoute> => {
    const key = `${tool.rowId}\0${createHash('sha256').update(JSON.stringify(tool.sources)).digest('hex')}`;
    let r = routes.get(key);
    if (!r) {
      r = decide(tool.sources);
      routes.set(key, r);
    }
    return r;
  };
  const decide = async (sources: string[]): Promise<RowRoute> => {
    const found = routeRow(sources, parts.callTimeoutMs);
    if (found.backend === 'pyodide') return { backend: 'pyodide', needs: [] };
    const k = found.needs.join(',');
    let p = probes.get(k);
    if (!p) {
      p = parts.probe(found.needs);
      probes.set(k, p);
    }
    const probe = await p;
    if (probe.ok) return { backend: 'python', needs: found.needs };
    return {
      backend: null,
      needs: found.needs,
      reason: `the row's tools import ${found.needs.join(', ')}, which the pyodide sandbox cannot run (${found.why}), and no CPython can: ${probe.reason}`,
    };
  };

  return {
    backend: 'auto',
    route,
    async call(tool, argumentsJson, opts) {
      const r = await route(tool);
      if (r.backend === null) return { kind: 'unavailable', message: r.reason, durationMs: 0 };
      return backendOf(r.backend).call(tool, argumentsJson, opts);
    },
    async checkLoad(tool) {
      const r = await route(tool);
      if (r.backend === null) return { ok: false, message: `unavailable: ${r.reason}` };
      return backendOf(r.backend).checkLoad(tool);
    },
    async warm() {
      // Only pyodide: the CPython pool starts in a fraction of a second when a row first needs it.
      await backendOf('pyodide').warm();
    },
    stats() {
      const all = [pyodide, python].filter((s): s is Sandbox => s !== undefined).map((s) => s.stats());
      const sum = (k: keyof (typeof all)[number]) => all.reduce((n, s) => n + s[k], 0);
      return {
        workers: sum('workers'),
        starts: sum('starts'),
        restarts: sum('restarts'),
        calls: sum('calls'),
        recycled: sum('recycled'),
      };
    },
    info(): SandboxInfo {
      const a = pyodide?.info();
      const b = python?.info();
      return {
        backend: 'auto',
        confinement: a?.confinement ?? b?.confinement ?? [],
        workerPids: [...(a?.workerPids ?? []), ...(b?.workerPids ?? [])],
        ...(a?.snapshot !== undefined ? { snapshot: a.snapshot } : {}),
        lastReady: a?.lastReady ?? b?.lastReady ?? null,
        peakRssBytes: Math.max(a?.peakRssBytes ?? 0, b?.peakRssBytes ?? 0),
      };
    },
    async close() {
      await Promise.all([pyodide?.close(), python?.close()]);
    },
  };
}

/** A sandbox's route for a row; one without `route` (a test's stand-in) runs every row in its own backend. */
export async function routeOf(sandbox: Sandbox, tool: Pick<ToolRef, 'rowId' | 'sources'>): Promise<RowRoute> {
  if (sandbox.route) return sandbox.route(tool);
  return { backend: sandbox.backend === 'python' ? 'python' : 'pyodide', needs: [] };
}
