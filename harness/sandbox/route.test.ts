import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { routeRow, runtimeImports } from './route.ts';

const src = (...lines: string[]) => lines.join('\n') + '\n';

const NUMPY_IN_BODY = src('def mean(xs):', '    import numpy as np', '    return float(np.mean(xs))');
const SYMPY_FROM = src(
  'def solve(e):',
  '    """Solve it."""',
  '    from sympy import sympify',
  '    return str(sympify(e))',
);
const PLAIN = src('import json', 'def f(x):', '    import datetime, re as regex', '    return json.dumps(x)');

describe('routeRow: which sandbox a row needs, from its sources alone', () => {
  it('sends a row to CPython when a kept function imports numpy, and says why', () => {
    expect(routeRow([PLAIN, NUMPY_IN_BODY], 10_000)).toEqual({
      backend: 'python',
      needs: ['numpy'],
      why: 'numpy has no wasm build in the pyodide sandbox',
    });
  });

  it('sends sympy to CPython under the default 10 s limit, not when the limit covers its pyodide import', () => {
    expect(routeRow([SYMPY_FROM], 10_000)).toMatchObject({ backend: 'python', needs: ['sympy'] });
    expect(routeRow([SYMPY_FROM], 29_999)).toMatchObject({ backend: 'python' });
    expect(routeRow([SYMPY_FROM], 30_000)).toEqual({ backend: 'pyodide', needs: [], why: '' });
    expect(routeRow([SYMPY_FROM, NUMPY_IN_BODY], 60_000)).toMatchObject({ backend: 'python', needs: ['numpy'] });
  });

  it('keeps pyodide for rows that only import what it runs', () => {
    expect(routeRow([PLAIN], 10_000)).toEqual({ backend: 'pyodide', needs: [], why: '' });
    expect(routeRow([], 10_000).backend).toBe('pyodide');
  });

  it('ignores what the runtime never runs: module-level imports, comments, strings, names that contain the word', () => {
    const ignored = [
      src('import numpy as np', 'def f(x):', '    return np.mean(x)'), // dropped with the module level: NameError anywhere
      src('try:', '    import numpy', 'except ImportError:', '    pass', 'def f():', '    return 1'),
      src('def f():', '    # import numpy', '    return "import numpy"'),
      src('def f():', '    """', '    import numpy', '    """', '    return 1'),
      src('def f():', "    s = '''x", 'import numpy', "'''", '    return s'),
      src('def f(numpy_import=1):', '    my_numpy = 2', '    return numpy_import'),
      src('def f():', '    return 1', 'if True:', '    import numpy'),
    ];
    for (const s of ignored) expect(routeRow([s], 10_000).backend, s).toBe('pyodide');
  });

  it('sees every import form that runs', () => {
    const seen = [
      src('def f():', '    import os, numpy.linalg as la', '    return 1'),
      src('def f():', '    x = 1; import numpy', '    return x'),
      src('def f(x):', '    if x: import numpy', '    return x'),
      src('def f():', '    from numpy.random import default_rng', '    return 1'),
      src('def f():', '    np = __import__("numpy")', '    return np'),
      src('def f():', "    np = __import__ ( 'numpy.linalg' )", '    return np'),
      src('def f(x=[', '      1]):', '    def g():', '        import \\', '            numpy', '    return g'),
      src('@decorate', 'def f():', '    import numpy', '    return 1'),
      src('async def f():', '    import numpy', '    return 1'),
    ];
    for (const s of seen) expect(runtimeImports(s), s).toContain('numpy');
  });

  it('reads the modules of a line without taking an imported name for a module', () => {
    expect(
      runtimeImports(src('def f():', '    from collections import numpy_like, OrderedDict', '    import a.b as c, d')),
    ).toEqual(['a', 'collections', 'd']);
  });
});

// The oracle: CPython's own ast over the code the runtime keeps (top-level functions), on hand-made sources and
// the real sample rows' functions where ../shared/data is present.
const PYTHON = '/usr/bin/python3';
const ORACLE = `
import ast, json, sys
out = []
for source in json.load(sys.stdin):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        out.append(None)
        continue
    mods = set()
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in ast.walk(node):
            if isinstance(n, ast.Import):
                mods.update(a.name.split('.')[0] for a in n.names)
            elif isinstance(n, ast.ImportFrom) and not n.level and n.module:
                mods.add(n.module.split('.')[0])
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == '__import__' and n.args
                  and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)):
                mods.add(n.args[0].value.split('.')[0])
    out.append(sorted(mods))
print(json.dumps(out))
`;
const samplePath = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../shared/data/toolhop/ToolHop.sample.json',
);

describe.skipIf(!existsSync(PYTHON))('runtimeImports against CPython’s ast (needs /usr/bin/python3)', () => {
  it('agrees on hand-made sources and on every function of the sample rows', () => {
    const hand = [NUMPY_IN_BODY, SYMPY_FROM, PLAIN, src('def f():', '    np = __import__("numpy")', '    return np')];
    const sample: string[] = existsSync(samplePath)
      ? (JSON.parse(readFileSync(samplePath, 'utf8')) as { functions: string[] }[]).flatMap((r) => r.functions)
      : [];
    if (!sample.length) console.info('runtimeImports: ../shared/data absent, hand-made sources only');
    const sources = [...hand, ...sample];
    const expected = JSON.parse(
      execFileSync(PYTHON, ['-c', ORACLE], { input: JSON.stringify(sources), maxBuffer: 64 << 20 }).toString(),
    ) as (string[] | null)[];
    const differences = sources.flatMap((s, i) =>
      expected[i] === null || JSON.stringify(runtimeImports(s)) === JSON.stringify(expected[i])
        ? []
        : [`#${i}: ${JSON.stringify(runtimeImports(s))} vs ast ${JSON.stringify(expected[i])}`],
    );
    expect(differences).toEqual([]);
    expect(sources.length).toBeGreaterThan(hand.length - 1);
  });
});
