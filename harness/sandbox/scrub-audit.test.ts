// Python's references to JavaScript after the pyodide worker's start, checked by a walk of its own (scrub_audit.py):
// forward from what a row can name (sys.modules, builtins, sys, every class) through everything each object refers
// to, where the worker's own count (`jsHandles`) walks back from the JavaScript objects sandbox_guard found. A scrub
// that missed JavaScript objects would also leave them out of its own count; this walk would still reach them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { WorkerPool } from './pool.ts';
import { PyodideLauncher } from './pyodide-backend.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

it('leaves no JavaScript object, _pyodide_core function or bridge module reachable from Python', async () => {
  const launcher = new PyodideLauncher({
    memoryLimitMb: 512,
    snapshot: true,
    maxResponseBytes: 2 ** 20,
    scrubAudit: readFileSync(path.join(here, 'scrub_audit.py'), 'utf8'),
  });
  const pool = new WorkerPool({
    size: 1,
    launch: () => launcher.launch(),
    prepare: () => launcher.prepare(),
    startTimeoutMs: 120_000,
    rssLimitBytes: 2 ** 30,
    maxLineBytes: 2 ** 21,
  });
  try {
    const [ready] = await pool.warm();
    expect(ready).toMatchObject({ snapshot: true, jsHandles: 0 });
    const audit = JSON.parse(String(ready?.scrubAudit)) as { reached: number; found: string[] };
    expect(audit.found).toEqual([]);
    // The walk went through the interpreter's objects (about 56,000 after a start), not an empty set of roots.
    expect(audit.reached).toBeGreaterThan(20_000);
  } finally {
    await pool.close();
    launcher.dispose();
  }
}, 180_000);
