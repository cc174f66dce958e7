// Where the Python packages and data the dataset tools use live on the host (Debian's python3-* packages).
// The pyodide workers see exactly these, read-only, at the same paths; nothing else of the host.
import { existsSync, realpathSync } from 'node:fs';

export const DIST_PACKAGES = '/usr/lib/python3/dist-packages';

/** Pure-Python package folders the allowed imports need (with their dependencies). */
const PACKAGE_DIRS = [
  'pytz', // pytz
  'dateutil', // python3-dateutil
  'six.py', // dateutil's dependency
  'babel', // python3-babel (locale data: see DATA_DIRS)
  'holidays', // python3-holidays
  'convertdate', // holidays' dependency
  'pymeeus', // convertdate's dependency
  'roman.py', // python3-roman
  'dicttoxml.py', // python3-dicttoxml
  'sympy', // python3-sympy (imported lazily: only when a tool does)
  'mpmath', // sympy's dependency
];

/** Data the packages read at run time: the tz database (pytz, dateutil) and babel's CLDR data. */
const DATA_DIRS = ['/usr/share/zoneinfo', '/usr/share/python-babel-localedata'];

export interface HostPath {
  host: string;
  /** Same as host: symlinks inside the packages (babel/locale-data) stay valid. */
  path: string;
  kind: 'dir' | 'file';
}

/** The package and data paths present on this host (missing ones are skipped: those imports fail). */
export function hostPythonPaths(distPackages = DIST_PACKAGES): HostPath[] {
  const out: HostPath[] = [];
  for (const name of PACKAGE_DIRS) {
    const host = `${distPackages}/${name}`;
    if (existsSync(host))
      out.push({ host, path: `${DIST_PACKAGES}/${name}`, kind: name.endsWith('.py') ? 'file' : 'dir' });
  }
  for (const dir of DATA_DIRS) {
    if (existsSync(dir)) out.push({ host: realpathSync(dir), path: dir, kind: 'dir' });
  }
  return out;
}

/** Modules the CPython server imports before forking calls, so that a call that uses them starts warm. */
export const SNAPSHOT_PREIMPORTS = [
  'json',
  're',
  'math',
  'cmath',
  'datetime',
  '_strptime',
  'time',
  'calendar',
  'locale',
  'collections',
  'itertools',
  'functools',
  'string',
  'csv',
  'io',
  'fractions',
  'decimal',
  'statistics',
  'numbers',
  'unicodedata',
  'base64',
  'binascii',
  'urllib.parse',
  'xml.dom.minidom',
  'xml.etree.ElementTree',
  'pytz',
  'dateutil.relativedelta',
  'dateutil.parser',
  'dateutil.tz',
  'dateutil.rrule',
  'babel.dates',
  'babel.numbers',
  'holidays',
  'roman',
  'dicttoxml',
];

/**
 * Modules imported into the pyodide memory snapshot: the same but holidays, which adds 6 MiB to a 20 MiB heap
 * (pyodide copies the used heap back before each row: see pyodide-worker.mjs) for one sample tool in 736.
 */
export const PYODIDE_PREIMPORTS = SNAPSHOT_PREIMPORTS.filter((m) => m !== 'holidays');
