import { existsSync } from 'node:fs';
import { typeName } from '../core/pyliteral/builtins.ts';
import { tryLiteralEval } from '../core/pyliteral/index.ts';
import { loadDatasetFile, parseRows } from './dataset.ts';

/**
 * `--smoke-dataset`: a structural check of the first rows without calling a model or executing any tool — fields,
 * schema shape, every function parses and compiles (Python's own `ast.parse` + `compile`, nothing is run),
 * tool/function names agree, and the answers' Python literal types.
 */
export interface SmokeReport {
  file: string;
  sha256: string;
  num_samples: number;
  unique_ids: number;
  duplicates: number;
  invalid_rows: Array<{ id: string; error: string }>;
  missing_fields: Record<string, number>;
  tools_per_sample: Stats;
  functions_per_sample: Stats;
  answer_literal_types: Record<string, number>;
  source_parse_or_compile_errors: number;
  source_error_examples: Array<[string, number, string, string]>;
  schema_errors: number;
  schema_error_examples: Array<[string, string, string]>;
  tool_function_name_mismatches: number;
  name_mismatch_examples: Array<[string, string[], string[]]>;
  duplicate_tool_names: Array<{ id: string; names: string[] }>;
}

interface Stats {
  min: number;
  max: number;
  mean: number;
  median: number;
}

const REQUIRED = ['id', 'question', 'answer', 'tools', 'functions'];

const PARSE_SCRIPT = `
import ast, json, sys
out = []
for item in json.load(sys.stdin):
    try:
        tree = ast.parse(item["source"])
        names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
        compile(item["source"], item["filename"], "exec")
        out.append({"ok": True, "names": names})
    except Exception as exc:
        out.append({"ok": False, "names": [], "type": type(exc).__name__, "error": str(exc)[:160]})
json.dump(out, sys.stdout)
`;

export async function smokeDataset(
  file: string,
  sel: { limit?: number; offset?: number; only?: string[] },
  python: string,
): Promise<SmokeReport> {
  const ds = loadDatasetFile(file, sel);
  const entries = ds.entries;
  const rawRows = rawRowsOf(file);
  const rows = entries.map((e) => ({ entry: e, raw: (rawRows[e.index] ?? {}) as Record<string, unknown> }));

  const sources: Array<{ id: string; index: number; source: string; filename: string }> = [];
  for (const { entry, raw } of rows) {
    const fns = Array.isArray(raw.functions) ? raw.functions : [];
    fns.forEach((source, index) =>
      sources.push({ id: entry.id, index, source: String(source), filename: `toolhop_${entry.id}_${index}.py` }),
    );
  }
  const parsed = await parseWithPython(python, sources);

  const missing: Record<string, number> = {};
  const answerTypes: Record<string, number> = {};
  const schemaErrors: SmokeReport['schema_error_examples'] = [];
  const sourceErrors: SmokeReport['source_error_examples'] = [];
  const mismatches: SmokeReport['name_mismatch_examples'] = [];
  const dupNames: SmokeReport['duplicate_tool_names'] = [];
  const toolCounts: number[] = [];
  const fnCounts: number[] = [];
  let cursor = 0;
  for (const { entry, raw } of rows) {
    for (const f of REQUIRED) if (!(f in raw)) missing[f] = (missing[f] ?? 0) + 1;
    const tools = raw.tools && typeof raw.tools === 'object' ? (raw.tools as Record<string, unknown>) : {};
    const fns = Array.isArray(raw.functions) ? raw.functions : [];
    toolCounts.push(Object.keys(tools).length);
    fnCounts.push(fns.length);
    const fnNames: string[] = [];
    for (let i = 0; i < fns.length; i++) {
      const p = parsed[cursor++]!;
      if (p.ok) fnNames.push(...p.names);
      else sourceErrors.push([entry.id, i, p.type ?? 'Error', p.error ?? '']);
    }
    const schemaNames: string[] = [];
    for (const [key, schema] of Object.entries(tools)) {
      if (!schema || typeof schema !== 'object') {
        schemaErrors.push([entry.id, key, 'schema_not_dict']);
        continue;
      }
      const s = schema as { name?: string; parameters?: { type?: string; properties?: unknown } };
      schemaNames.push(String(s.name));
      if (!s.parameters || s.parameters.type !== 'object' || !('properties' in s.parameters))
        schemaErrors.push([entry.id, String(s.name), 'bad_parameters']);
    }
    const a = new Set(schemaNames);
    const b = new Set(fnNames);
    const onlySchema = [...a].filter((x) => !b.has(x)).sort();
    const onlyFn = [...b].filter((x) => !a.has(x)).sort();
    if (onlySchema.length || onlyFn.length) mismatches.push([entry.id, onlySchema.slice(0, 5), onlyFn.slice(0, 5)]);
    if (a.size !== schemaNames.length)
      dupNames.push({ id: entry.id, names: schemaNames.filter((n, i) => schemaNames.indexOf(n) !== i) });
    const t = literalType(String(raw.answer ?? ''));
    answerTypes[t] = (answerTypes[t] ?? 0) + 1;
  }
  const ids = rows.map((r) => String(r.raw.id));
  return {
    file,
    sha256: ds.sha256,
    num_samples: rows.length,
    unique_ids: new Set(ids).size,
    duplicates: ids.length - new Set(ids).size,
    invalid_rows: entries.filter((e) => !e.ok).map((e) => ({ id: e.id, error: (e as { error: string }).error })),
    missing_fields: missing,
    tools_per_sample: stats(toolCounts),
    functions_per_sample: stats(fnCounts),
    answer_literal_types: answerTypes,
    source_parse_or_compile_errors: sourceErrors.length,
    source_error_examples: sourceErrors.slice(0, 5),
    schema_errors: schemaErrors.length,
    schema_error_examples: schemaErrors.slice(0, 5),
    tool_function_name_mismatches: mismatches.length,
    name_mismatch_examples: mismatches.slice(0, 5),
    duplicate_tool_names: dupNames,
  };
}

/** Python's `type(ast.literal_eval(answer.strip())).__name__`, or raw_string. */
export function literalType(answer: string): string {
  const v = tryLiteralEval(answer.trim());
  if (v === undefined) return 'raw_string';
  return typeName(v);
}

function rawRowsOf(file: string): unknown[] {
  // The same reading as the loader; a JSONL line that does not parse counts as a row with no fields.
  return parseRows(file).map((r) => (r instanceof Error ? {} : r));
}

async function parseWithPython(python: string, sources: Array<{ source: string; filename: string }>) {
  const exe = existsSync(python) ? python : 'python3';
  const { execa } = await import('execa'); // only a smoke check runs it: not loaded by every ToolHop run
  const r = await execa(exe, ['-c', PARSE_SCRIPT], { input: JSON.stringify(sources), timeout: 120_000, reject: false });
  if (r.exitCode !== 0) throw new Error(`smoke-dataset: ${exe} failed: ${String(r.stderr).slice(0, 300)}`);
  return JSON.parse(String(r.stdout)) as Array<{ ok: boolean; names: string[]; type?: string; error?: string }>;
}

function stats(xs: number[]): Stats {
  if (!xs.length) return { min: 0, max: 0, mean: 0, median: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return {
    min: s[0]!,
    max: s.at(-1)!,
    mean: Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000,
    median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2,
  };
}
