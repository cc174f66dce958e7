// Whether the CPython backend can run a row: the run's interpreter (--python / TOOLGAUGE_PYTHON, else Debian's
// /usr/bin/python3) starts, is 3.11 or newer (the worker relies on PYTHONSAFEPATH) and imports the modules the row
// needs, with the worker's flags and environment. Asked once per interpreter and module set, only when a row needs it.
import { execFile } from 'node:child_process';
import { z } from 'zod';

export type CPythonProbe = { ok: true; version: string } | { ok: false; reason: string };

const PROBE = `
import importlib, json, sys
missing = []
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception as exc:
        missing.append(f"{name} ({type(exc).__name__}: {exc})")
print(json.dumps({"version": "%d.%d.%d" % sys.version_info[:3], "ok311": sys.version_info >= (3, 11), "missing": missing}))
`;

const Answer = z.object({ version: z.string(), ok311: z.boolean(), missing: z.array(z.string()) });

/** Run the probe (30 s limit). A missing interpreter, an old one or a missing module is `ok: false` with why. */
export function probeCPython(pythonPath: string, modules: readonly string[]): Promise<CPythonProbe> {
  return new Promise((resolve) => {
    execFile(
      pythonPath,
      ['-s', '-B', '-c', PROBE, JSON.stringify(modules)],
      {
        timeout: 30_000,
        maxBuffer: 1 << 20,
        env: { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', PYTHONSAFEPATH: '1', TZ: 'UTC', OPENBLAS_NUM_THREADS: '1' },
      },
      (err, stdout) => {
        if (err && !stdout) return resolve({ ok: false, reason: `${pythonPath}: ${firstLine(err.message)}` });
        const parsed = Answer.safeParse(safeJson(stdout.trim().split('\n').pop() ?? ''));
        if (!parsed.success) return resolve({ ok: false, reason: `${pythonPath}: no answer from the probe` });
        const a = parsed.data;
        if (!a.ok311)
          return resolve({ ok: false, reason: `${pythonPath} is Python ${a.version}, 3.11 or newer needed` });
        if (a.missing.length)
          return resolve({
            ok: false,
            reason: `${pythonPath} (Python ${a.version}) cannot import ${a.missing.join(', ')}`,
          });
        resolve({ ok: true, version: a.version });
      },
    );
  });
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 300);
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
