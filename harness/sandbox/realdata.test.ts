// Real ToolHop rows (../shared/data, skipped when absent): every function loads in the pyodide sandbox, and
// calling every tool with dummy arguments never breaks the harness and behaves the same in both backends.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type ToolOutcome, type ToolRef } from './index.ts';
import { canonicalResult } from '../../tests/helpers/set-order.ts';

const samplePath = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../shared/data/toolhop/ToolHop.sample.json',
);

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
}
interface Row {
  id: number | string;
  tools: Record<string, { name: string; parameters: { properties?: Record<string, JsonSchema>; required?: string[] } }>;
  functions: string[];
}

const DUMMIES: Record<string, unknown> = {
  string: 'test',
  integer: 1,
  number: 1.5,
  boolean: true,
  array: [],
  object: {},
};

/** Simple type-based dummies for the required parameters (the first enum value where there is one). */
function dummyArguments(schema: Row['tools'][string]): Record<string, unknown> {
  const value = (p: JsonSchema | undefined): unknown => {
    if (p?.enum?.length) return p.enum[0];
    const t = Array.isArray(p?.type) ? p.type[0] : p?.type;
    return DUMMIES[t ?? ''] ?? null;
  };
  return Object.fromEntries(
    (schema.parameters.required ?? []).map((k) => [k, value(schema.parameters.properties?.[k])]),
  );
}

function summary(o: ToolOutcome): string {
  if (o.kind === 'ok') return `ok ${canonicalResult(o.content)}`;
  if (o.kind === 'exception') return `exception ${o.excType}`;
  return o.kind;
}

describe.skipIf(!existsSync(samplePath))('real ToolHop rows (needs ../shared/data)', () => {
  const rows: Row[] = existsSync(samplePath) ? JSON.parse(readFileSync(samplePath, 'utf8')) : [];
  const tools: { ref: ToolRef; args: string }[] = rows.flatMap((row) =>
    Object.values(row.tools).map((schema, index) => ({
      ref: { rowId: row.id, index, name: schema.name, sources: row.functions },
      args: JSON.stringify(dummyArguments(schema)),
    })),
  );
  // Every third row's tools are compared by default; every row's with TOOLGAUGE_SANDBOX_FULL=1 (slow).
  const full = process.env.TOOLGAUGE_SANDBOX_FULL === '1';
  const comparedRows = new Set(rows.filter((_, i) => full || i % 3 === 0).map((r) => r.id));
  let pyodide: Sandbox;
  let python: Sandbox;

  beforeAll(async () => {
    // One worker each: a second pyodide worker costs its own start (about 1.4 CPU-s) and only competes for the
    // same cores; the calls below are the same either way.
    pyodide = createSandbox({ backend: 'pyodide', poolSize: 1 });
    python = createSandbox({ backend: 'python', poolSize: 1 });
    await Promise.all([pyodide.warm(), python.warm()]);
  });
  afterAll(async () => {
    await Promise.all([pyodide?.close(), python?.close()]);
  });

  interface Pass {
    /** checkLoad of every tool, in `tools` order. */
    loads: Awaited<ReturnType<Sandbox['checkLoad']>>[];
    /** pyodide's and CPython's outcome of each called tool (every compared row's tools, every other row's first). */
    calls: Map<ToolRef, { pyodide: ToolOutcome; python?: ToolOutcome }>;
  }

  /**
   * One pass over the rows for all three tests, each row's requests back to back: its tools loaded, then its
   * first tool called (and in a compared row every tool, as CPython calls them meanwhile). The pyodide worker
   * restores its heap once per row instead of once per row in each test (about 3.5 ms each), and compiles a row's
   * sources once. Whichever test runs first makes it.
   */
  let made: Promise<Pass> | undefined;
  const pass = (): Promise<Pass> => {
    made ??= (async () => {
      // The pool serves its queue in order: each row's loads and calls are queued together, row after row.
      const loads: Promise<Pass['loads'][number]>[] = [];
      const calls = new Map<ToolRef, { pyodide: ToolOutcome; python?: ToolOutcome }>();
      const pending: Promise<void>[] = [];
      for (const row of rows) {
        const own = tools.filter((t) => t.ref.rowId === row.id);
        for (const { ref } of own) loads.push(pyodide.checkLoad(ref));
        const compared = comparedRows.has(row.id);
        for (const { ref, args } of own.filter((t) => compared || t.ref.index === 0)) {
          const both = Promise.all([pyodide.call(ref, args), compared ? python.call(ref, args) : undefined]);
          pending.push(both.then(([a, b]) => void calls.set(ref, { pyodide: a, python: b })));
        }
      }
      await Promise.all(pending);
      return { loads: await Promise.all(loads), calls };
    })();
    return made;
  };

  it('loads every function of every row in the pyodide sandbox', async () => {
    const { loads } = await pass();
    const failures: string[] = [];
    loads.forEach((r, i) => {
      const { ref } = tools[i]!;
      if (!r.ok) failures.push(`row ${ref.rowId} tool ${ref.index} ${ref.name}: ${r.message}`);
    });
    console.info(
      `ToolHop sample: ${tools.length} tools in ${rows.length} rows, ${failures.length} do not load`,
      failures,
    );
    expect(tools.length).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  });

  it('calls each row’s first tool with dummy arguments without breaking the harness', async () => {
    const { calls } = await pass();
    const counts: Record<string, number> = {};
    const excTypes: Record<string, number> = {};
    for (const row of rows) {
      const first = tools.find((t) => t.ref.rowId === row.id && t.ref.index === 0)!;
      const o = calls.get(first.ref)!.pyodide;
      counts[o.kind] = (counts[o.kind] ?? 0) + 1;
      if (o.kind === 'exception') excTypes[o.excType] = (excTypes[o.excType] ?? 0) + 1;
    }
    console.info('first tool of each row (pyodide):', counts, 'exceptions:', excTypes, pyodide.stats());
    expect(Object.keys(counts).filter((k) => !['ok', 'exception', 'timeout'].includes(k))).toEqual([]);
    expect(counts.ok).toBeGreaterThan(rows.length / 2);
  });

  it(`gives the same outcome in pyodide and in CPython for every tool of ${full ? 'every' : 'every third'} row`, async () => {
    const { calls } = await pass();
    const differences: string[] = [];
    const compared = tools.filter((t) => comparedRows.has(t.ref.rowId));
    expect(compared.length).toBeGreaterThan(0);
    for (const { ref } of compared) {
      const { pyodide: a, python: b } = calls.get(ref)!;
      if (summary(a) !== summary(b!))
        differences.push(`row ${ref.rowId} tool ${ref.index}: ${summary(a)} | ${summary(b!)}`);
    }
    expect(differences).toEqual([]);
  });
});
