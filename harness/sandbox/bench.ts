// Sandbox performance: `npx tsx harness/sandbox/bench.ts [--calls N] [--starts N] [--backend pyodide|python]`.
// Worker start time (with and without the memory snapshot), warm call latency (median, p95), the cold first
// call of each ToolHop row (real sample rows when ../shared/data is present, else the fixtures), peak RSS.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createSandbox, type SandboxBackend, type ToolRef } from './index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const samplePath = path.resolve(here, '../../../shared/data/toolhop/ToolHop.sample.json');

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000' },
    starts: { type: 'string', default: '5' },
    backend: { type: 'string', multiple: true },
  },
});
const backends = (values.backend?.length ? values.backend : ['pyodide', 'python']) as SandboxBackend[];

function stats(xs: number[]): { n: number; median: number; p95: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { n: s.length, median: round(at(0.5)), p95: round(at(0.95)), max: round(s[s.length - 1] ?? NaN) };
}
const round = (x: number) => Math.round(x * 100) / 100;

/** Peak resident set (VmHWM) of a process, in MiB (for CPython, the server: each call's child is short-lived). */
function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

interface RowTools {
  id: string | number;
  first: ToolRef;
  args: string;
}

function rowsToCall(): { source: string; rows: RowTools[] } {
  if (existsSync(samplePath)) {
    const rows = JSON.parse(readFileSync(samplePath, 'utf8')) as {
      id: number;
      functions: string[];
      tools: Record<
        string,
        {
          name: string;
          parameters: { required?: string[]; properties?: Record<string, { type?: unknown; enum?: unknown[] }> };
        }
      >;
    }[];
    const dummy: Record<string, unknown> = {
      string: 'test',
      integer: 1,
      number: 1.5,
      boolean: true,
      array: [],
      object: {},
    };
    return {
      source: samplePath,
      rows: rows.map((r) => {
        const schema = Object.values(r.tools)[0]!;
        const args = Object.fromEntries(
          (schema.parameters.required ?? []).map((k) => {
            const p = schema.parameters.properties?.[k];
            const t = Array.isArray(p?.type) ? p.type[0] : p?.type;
            return [k, p?.enum?.length ? p.enum[0] : (dummy[String(t)] ?? null)];
          }),
        );
        return {
          id: r.id,
          first: { rowId: r.id, index: 0, name: schema.name, sources: r.functions },
          args: JSON.stringify(args),
        };
      }),
    };
  }
  const src = readFileSync(path.resolve(here, '../../fixtures/sandbox/tools/reduce.py'), 'utf8');
  return {
    source: 'fixtures (../shared/data absent)',
    rows: Array.from({ length: 50 }, (_, i) => ({
      id: i,
      first: { rowId: `bench${i}`, index: 0, name: 'double', sources: [src] },
      args: '{"x": 1}',
    })),
  };
}

async function startTimes(backend: SandboxBackend, n: number, snapshot: boolean) {
  const host: number[] = [];
  const worker: number[] = [];
  let note = '';
  for (let i = 0; i < n; i++) {
    const sb = createSandbox({ backend, poolSize: 1, snapshot });
    await sb.warm();
    const info = sb.info();
    if (info.lastReady) {
      host.push(info.lastReady.spawnToReadyMs);
      if (typeof info.lastReady.startMs === 'number') worker.push(info.lastReady.startMs);
    }
    note = info.snapshot ?? '';
    await sb.close();
  }
  return {
    spawnToReadyMs: stats(host),
    ...(worker.length ? { insideWorkerMs: stats(worker) } : {}),
    ...(note ? { snapshot: note } : {}),
  };
}

async function bench(backend: SandboxBackend) {
  const out: Record<string, unknown> = { backend };
  // The first sandbox builds the snapshot if no cached one exists; time that separately.
  const t0 = performance.now();
  const first = createSandbox({ backend, poolSize: 1 });
  await first.warm();
  out.firstStartIncludingSnapshotPrepMs = round(performance.now() - t0);
  out.confinement = first.info().confinement;
  await first.close();

  out.start = await startTimes(backend, Number(values.starts), true);
  if (backend === 'pyodide') out.startWithoutSnapshot = await startTimes(backend, 2, false);

  const sb = createSandbox({ backend, poolSize: 1 });
  await sb.warm();
  const pid = sb.info().workerPids[0]; // the host pid (the worker is pid 1 of its own namespace)
  const warmTool: ToolRef = {
    rowId: 'warm',
    index: 0,
    name: 'f',
    sources: ['def f(city, days=3):\n    return {"city": city.title(), "days": [d * 2 for d in range(days)]}\n'],
  };
  await sb.call(warmTool, '{"city": "paris"}');
  const warm: number[] = [];
  for (let i = 0; i < Number(values.calls); i++) {
    const o = await sb.call(warmTool, JSON.stringify({ city: `city ${i}`, days: 5 }));
    if (o.kind !== 'ok') throw new Error(`warm call failed: ${JSON.stringify(o)}`);
    warm.push(o.durationMs);
  }
  out.warmCallMs = stats(warm);

  const { source, rows } = rowsToCall();
  const cold: number[] = [];
  const kinds: Record<string, number> = {};
  for (const r of rows) {
    const o = await sb.call(r.first, r.args);
    cold.push(o.durationMs);
    kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
  }
  out.coldFirstCallPerRowMs = { ...stats(cold), rows: source, outcomes: kinds };
  out.workerPeakRssMb = peakRssMb(pid);
  await sb.close();
  return out;
}

for (const backend of backends) console.log(JSON.stringify(await bench(backend), null, 2));
