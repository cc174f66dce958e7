// Which sandbox a ToolHop row's tools need, decided by reading the row's Python sources (never by running them):
// the modules imported by code that runs — inside top-level function definitions, their decorators and defaults,
// since the runtime keeps only those (runtime/toolhop_runtime.py, reduce_source) — checked against what the pyodide
// sandbox cannot run. Pure and deterministic: the same sources and time limit give the same route.

/** Modules the pyodide sandbox cannot run, and why (docs/toolhop.md, "Sandboxes"). */
export const PYODIDE_CANNOT_RUN: Readonly<Record<string, { why: string; unlessTimeoutMsAtLeast?: number }>> = {
  numpy: { why: 'numpy has no wasm build in the pyodide sandbox' },
  // sympy's first import in pyodide takes 12–20 s on a loaded 2-core machine (no cached 3.13 bytecode): with a call
  // limit below 30 s the import alone ends the call.
  sympy: { why: 'importing sympy in pyodide takes 12–20 s', unlessTimeoutMsAtLeast: 30_000 },
};

export interface StaticRoute {
  backend: 'pyodide' | 'python';
  /** The imported modules that send the row to CPython (empty for pyodide), sorted. */
  needs: string[];
  /** Why, in words (empty for pyodide). */
  why: string;
}

/** The route of a row from all of its function sources, for a given per-call time limit. */
export function routeRow(sources: readonly string[], callTimeoutMs: number): StaticRoute {
  const needs = new Set<string>();
  for (const source of sources)
    for (const mod of runtimeImports(source)) {
      const limit = PYODIDE_CANNOT_RUN[mod];
      if (limit && !(limit.unlessTimeoutMsAtLeast !== undefined && callTimeoutMs >= limit.unlessTimeoutMsAtLeast))
        needs.add(mod);
    }
  const sorted = [...needs].sort();
  if (!sorted.length) return { backend: 'pyodide', needs: [], why: '' };
  return { backend: 'python', needs: sorted, why: sorted.map((m) => PYODIDE_CANNOT_RUN[m]!.why).join('; ') };
}

interface LogicalLine {
  indent: number;
  /** The code with comments removed and every string literal replaced by `""`. */
  code: string;
  /** The string literals' bodies, in order (for `__import__('name')`). */
  strings: string[];
}

/**
 * Root module names imported by the code the runtime keeps: `import a.b`, `from a.b import c` and
 * `__import__('a')` with a literal name, inside top-level `def`s (body, decorators, defaults). Module-level
 * statements other than `def` are dropped by the runtime, so their imports never run. A name built at run time
 * (`__import__(x)`) is not seen.
 */
export function runtimeImports(source: string): string[] {
  const out = new Set<string>();
  let inDef = false;
  for (const line of logicalLines(source)) {
    if (line.indent === 0) inDef = /^(?:@|(?:async\s+)?def\b)/.test(line.code);
    if (!inDef) continue;
    for (const m of importedRoots(line)) out.add(m);
  }
  return [...out].sort();
}

const NAME = String.raw`[\p{L}\p{Nl}_][\p{L}\p{N}\p{Mn}\p{Mc}\p{Pc}]*`;
const DOTTED = String.raw`${NAME}(?:\s*\.\s*${NAME})*`;
// `import` and `from` are keywords: outside strings and comments they only ever start an import statement.
const FROM_RE = new RegExp(String.raw`(?<![\p{L}\p{N}_.])from\s+(${DOTTED})\s+import\b`, 'gu');
const IMPORT_RE = new RegExp(
  String.raw`(?<![\p{L}\p{N}_.])import\s+(${DOTTED}(?:\s+as\s+${NAME})?(?:\s*,\s*${DOTTED}(?:\s+as\s+${NAME})?)*)`,
  'gu',
);
const DUNDER_IMPORT_RE = /\b__import__\s*\(\s*""/gu;

function importedRoots(line: LogicalLine): string[] {
  const out: string[] = [];
  const root = (dotted: string) => dotted.split('.')[0]!.trim();
  // `from x import y` first, then blank it so its `import y` is not read as a module.
  const code = line.code.replace(FROM_RE, (_all, mod: string) => {
    out.push(root(mod));
    return ' '.repeat(_all.length);
  });
  for (const m of code.matchAll(IMPORT_RE))
    for (const part of m[1]!.split(',')) out.push(root(part.trim().split(/\s+as\s+/u)[0]!));
  // `__import__("numpy")`: the literal right after the call's parenthesis, found by counting the literals before it.
  for (const m of line.code.matchAll(DUNDER_IMPORT_RE)) {
    const before = (line.code.slice(0, m.index! + m[0].length - 2).match(/""/g) ?? []).length;
    const body = line.strings[before];
    if (body !== undefined) out.push(root(body));
  }
  return out.filter(Boolean);
}

const STRING_START = /^(?:[rRbBuUfF]{0,2})("""|'''|"|')/;

/**
 * Python's logical lines, lexically: comments dropped, strings (any prefix, triple-quoted, escapes) replaced by
 * `""`, lines joined inside brackets and after a backslash. A source that is not valid Python still yields lines;
 * the runtime reports its syntax error when the tool is called.
 */
export function logicalLines(source: string): LogicalLine[] {
  const s = source.replace(/\r\n?/g, '\n');
  const lines: LogicalLine[] = [];
  let code = '';
  let strings: string[] = [];
  let indent = 0;
  let atStart = true;
  let depth = 0;
  let i = 0;
  const flush = () => {
    if (code.trim()) lines.push({ indent, code: code.trim(), strings });
    code = '';
    strings = [];
    atStart = true;
  };
  while (i < s.length) {
    if (atStart) {
      let col = 0;
      while (s[i] === ' ' || s[i] === '\t' || s[i] === '\f') {
        col = s[i] === '\t' ? (Math.floor(col / 8) + 1) * 8 : s[i] === '\f' ? 0 : col + 1;
        i++;
      }
      indent = col;
      atStart = false;
      continue;
    }
    const c = s[i]!;
    if (c === '#') {
      while (i < s.length && s[i] !== '\n') i++;
      continue;
    }
    if (c === '\\' && s[i + 1] === '\n') {
      i += 2;
      code += ' ';
      continue;
    }
    if (c === '\n') {
      i++;
      if (depth > 0) code += ' ';
      else if (code.trim()) flush();
      else atStart = true;
      continue;
    }
    const prev = s[i - 1];
    const prefixStart = !prev || !/[\p{L}\p{N}_]/u.test(prev);
    const str = prefixStart ? STRING_START.exec(s.slice(i, i + 5)) : null;
    if (str) {
      const quote = str[1]!;
      const raw = /[rR]/.test(str[0].slice(0, -quote.length));
      let j = i + str[0].length;
      let body = '';
      while (j < s.length && !s.startsWith(quote, j)) {
        if (s[j] === '\\' && j + 1 < s.length) {
          body += raw ? s.slice(j, j + 2) : s[j + 1];
          j += 2;
          continue;
        }
        if (s[j] === '\n' && quote.length === 1) break; // unterminated: the line ends the literal
        body += s[j];
        j++;
      }
      strings.push(body);
      code += '""';
      i = Math.min(s.length, j + quote.length);
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    code += c;
    i++;
  }
  flush();
  return lines;
}
