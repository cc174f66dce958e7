import type { ToolhopMeta } from './meta.ts';

/** How many runs each sandbox served, and how many could not run for want of one (`--sandbox auto`). */
export interface SandboxCounts {
  pyodide: number;
  python: number;
  /** Runs not run: their tools need CPython and none could import what they need (errors, never wrong answers). */
  environment_errors: number;
  /** Runs sent to CPython (or refused), by the import that needed it. */
  needs: Record<string, number>;
}

/** Counted from the metas that record a sandbox; null when none does (older journals, no tool ran). */
export function sandboxCounts(metas: readonly ToolhopMeta[]): SandboxCounts | null {
  const recorded = metas.filter((m) => m.sandbox !== undefined);
  if (!recorded.length) return null;
  const needs: Record<string, number> = {};
  for (const m of recorded) for (const n of m.sandbox_needs ?? []) needs[n] = (needs[n] ?? 0) + 1;
  return {
    pyodide: recorded.filter((m) => m.sandbox === 'pyodide').length,
    python: recorded.filter((m) => m.sandbox === 'python').length,
    environment_errors: recorded.filter((m) => m.sandbox === null).length,
    needs: Object.fromEntries(Object.entries(needs).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

/** One line for the report and the terminal. */
export function sandboxLine(c: SandboxCounts): string {
  const needs = Object.entries(c.needs)
    .map(([m, n]) => `${m} ${n}`)
    .join(', ');
  return (
    `sandbox: ${c.pyodide} runs in pyodide, ${c.python} in CPython` +
    (needs ? ` (imports pyodide cannot run: ${needs})` : '') +
    `, ${c.environment_errors} environment errors (no CPython for them; counted as errors, not wrong answers)`
  );
}
