/**
 * The whole environment of a confined CPython worker (the sandbox's, and BFCL's executor's): nothing else is passed.
 * Not `-I`: it implies `-E`, which would ignore PYTHONHASHSEED (set iteration order would change from run to run);
 * the workers run with `-s` (no user site) and PYTHONSAFEPATH (the script's folder not on sys.path, as `-I`'s `-P`).
 */
export const PYTHON_WORKER_ENV: Readonly<Record<string, string>> = {
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONHASHSEED: '0',
  PYTHONSAFEPATH: '1',
  PYTHONIOENCODING: 'utf-8',
  TZ: 'UTC',
};
