// Declarative Maze tools: library files (YAML or JSON) → MazeTool objects. A file holds tables, named functions
// and tools; a tool is its schemas, plausibility checks, failure modes and a behaviour written as steps of
// expressions (harness/maze/tools/expr.ts). Every file is validated with zod and every expression parsed and
// checked when the file loads, so a mistake is one line naming the file, the tool and the field — never a
// failure in the middle of a run. docs/maze-tools.md documents the format.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { readJsonOrYaml } from '../../core/data-file.ts';
import { z } from 'zod';
import { DataError, firstZodIssue } from '../../core/errors.ts';
import { DETECTORS, type Detector } from '../detectors.ts';
import {
  calledFunctions,
  evalExpr,
  evalTemplate,
  ExprError,
  parseExpr,
  parseTemplate,
  scopeOf,
  type Expr,
  type ExprFn,
  type Scope,
  type Template,
} from './expr.ts';
import { contextFunctions, FUNCTION_NAMES, PURE_FUNCTIONS, WORLD_TABLES } from './functions.ts';
import { parsedBuiltin } from './parsed-builtin.ts';
import { acceptsStrict } from './strict-schema.ts';
import { toolError, type MazeTool, type ToolArgs, type ToolContext, type ToolResult } from './types.ts';

/** The built-in library's files, loaded in name order (the order fixes the library's tool order). */
export const BUILTIN_TOOLS_DIR = fileURLToPath(new URL('../../../cases/maze/tools/', import.meta.url));

const Name = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a name (letters, digits, _)');
const ExprSrc = z.string().min(1);
const JsonSchema = z.record(z.string(), z.unknown());

const Checks = z
  .object({
    non_negative: z.array(z.string()).optional(),
    echo: z.record(z.string(), z.string()).optional(),
    sums: z.array(z.object({ items: z.string(), amount: z.string(), total: z.string() }).strict()).optional(),
    timestamp: z.object({ field: z.string(), arg: z.string().optional() }).strict().optional(),
    ranges: z.record(z.string(), z.tuple([z.number(), z.number()])).optional(),
  })
  .strict();

const Step = z.union([
  z.object({ let: z.record(Name, ExprSrc) }).strict(),
  z.object({ fail_if: ExprSrc, error: z.string().min(1) }).strict(),
  z.object({ return: z.union([ExprSrc, z.record(z.string(), z.union([ExprSrc, z.number(), z.boolean()]))]) }).strict(),
]);
type StepSpec = z.infer<typeof Step>;

const ToolFields = {
  domain: z.string().min(1),
  category: z.enum(['source', 'processor', 'action']),
  description: z.string().min(1),
  substitute_set: Name.optional(),
  parameters: JsonSchema,
  output: JsonSchema,
  checks: Checks.optional(),
  entity: z
    .object({ arg: z.string().min(1), values: ExprSrc })
    .strict()
    .optional(),
  primary: z.string().optional(),
  /** The implicit corruptions (P3/P4) this tool can take; each needs a check that catches it. Default: all its checks allow. */
  failure_modes: z.array(z.enum(DETECTORS)).optional(),
  run: z.array(Step).min(1),
};
const ToolSpec = z.object({ name: Name, ...ToolFields }).strict();
type ToolSpec = z.infer<typeof ToolSpec>;
/** As written: `like` copies every field not given from an earlier tool of the library. */
const ToolEntry = z
  .object({
    name: Name,
    like: Name.optional(),
    ...Object.fromEntries(Object.entries(ToolFields).map(([k, v]) => [k, v.optional()])),
  })
  .strict();

export const LibraryFile = z
  .object({
    version: z.literal(1),
    /** Default domain of the file's tools. */
    domain: z.string().min(1).optional(),
    /** Named data (rows or records) the file's expressions — and later files' — read by name. */
    tables: z.record(Name, z.unknown()).optional(),
    /** Named functions: `{params, body}`; callable from any expression of the library. */
    functions: z.record(Name, z.object({ params: z.array(Name), body: ExprSrc }).strict()).optional(),
    tools: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .strict();

interface UserFunction {
  params: string[];
  body: Expr;
}

/** What every expression of one library can reach besides the call's own arguments. */
interface LibraryEnv {
  tables: Record<string, unknown>;
  functions: Map<string, UserFunction>;
  /** Built once every function is compiled. */
  fns?: Record<string, ExprFn>;
  globals: Scope;
  current: CurrentCall;
}

function fail(file: string, field: string, problem: string): never {
  throw new DataError(file, undefined, field, problem);
}

function compile(file: string, field: string, src: string, env: LibraryEnv): Expr {
  let e: Expr;
  try {
    e = parseExpr(src);
  } catch (err) {
    return fail(file, field, `${(err as Error).message} in '${src}'`);
  }
  for (const f of calledFunctions(e))
    if (!FUNCTION_NAMES.has(f) && !env.functions.has(f)) fail(file, field, `unknown function '${f}' in '${src}'`);
  return e;
}

function compileTemplate(file: string, field: string, src: string, env: LibraryEnv): Template {
  let t: Template;
  try {
    t = parseTemplate(src);
  } catch (err) {
    return fail(file, field, `${(err as Error).message} in '${src}'`);
  }
  for (const part of t)
    if (typeof part !== 'string')
      for (const f of calledFunctions(part))
        if (!FUNCTION_NAMES.has(f) && !env.functions.has(f)) fail(file, field, `unknown function '${f}' in '${src}'`);
  return t;
}

type Compiled =
  | { kind: 'let'; names: Array<[string, Expr]> }
  | { kind: 'fail'; test: Expr; error: Template }
  | { kind: 'return'; whole?: Expr; fields?: Array<[string, Expr]> };

function compileSteps(file: string, where: string, steps: StepSpec[], env: LibraryEnv): Compiled[] {
  const out = steps.map((s, i): Compiled => {
    const f = `${where}.run[${i}]`;
    if ('let' in s)
      return { kind: 'let', names: Object.entries(s.let).map(([k, v]) => [k, compile(file, `${f}.let.${k}`, v, env)]) };
    if ('fail_if' in s)
      return {
        kind: 'fail',
        test: compile(file, `${f}.fail_if`, s.fail_if, env),
        error: compileTemplate(file, `${f}.error`, s.error, env),
      };
    if (typeof s.return === 'string') return { kind: 'return', whole: compile(file, `${f}.return`, s.return, env) };
    return {
      kind: 'return',
      fields: Object.entries(s.return).map(([k, v]) => [
        k,
        typeof v === 'string' ? compile(file, `${f}.return.${k}`, v, env) : { k: 'lit', v },
      ]),
    };
  });
  if (out[out.length - 1]!.kind !== 'return') fail(file, `${where}.run`, 'the last step must be a return');
  return out;
}

/** The call a library's context functions read (tool calls run one at a time, synchronously). */
interface CurrentCall {
  tool: string;
  args: ToolArgs;
  ctx: ToolContext;
}

/**
 * The functions of a library, built once: the built-ins, the history-reading ones (reading `env.current`) and the
 * library's own.
 */
function libraryFunctions(env: LibraryEnv): Record<string, ExprFn> {
  const globals = scopeOf(env.tables);
  const ctxFns = (): Record<string, ExprFn> => contextFunctions(env.current.tool, env.current.args, env.current.ctx);
  const fns: Record<string, ExprFn> = { ...PURE_FUNCTIONS };
  for (const name of Object.keys(contextFunctions('', {}, { history: [] })))
    fns[name] = (...xs) => ctxFns()[name]!(...xs);
  for (const [name, f] of env.functions) {
    fns[name] = (...xs) =>
      evalExpr(f.body, scopeOf(Object.fromEntries(f.params.map((p, i) => [p, xs[i]])), globals), fns);
  }
  return fns;
}

/** Run `f` with `call` as the current call, restoring the previous one after. */
function withCall<T>(env: LibraryEnv, call: CurrentCall, f: () => T): T {
  const prev = env.current;
  env.current = call;
  try {
    return f();
  } finally {
    env.current = prev;
  }
}

function runSteps(env: LibraryEnv, steps: Compiled[], args: ToolArgs, ctx: ToolContext): ToolResult {
  const fns = env.fns!;
  const vars: Record<string, unknown> = { args, history: ctx.history };
  const scope = scopeOf(vars, env.globals);
  for (const s of steps) {
    if (s.kind === 'let') for (const [k, e] of s.names) vars[k] = evalExpr(e, scope, fns);
    else if (s.kind === 'fail') {
      if (evalExpr(s.test, scope, fns)) return toolError(evalTemplate(s.error, scope, fns));
    } else {
      if (s.whole) {
        const r = evalExpr(s.whole, scope, fns);
        if (r === null || typeof r !== 'object' || Array.isArray(r))
          throw new ExprError('the return expression must give an object');
        return r as ToolResult;
      }
      return Object.fromEntries(s.fields!.map(([k, e]) => [k, evalExpr(e, scope, fns)]));
    }
  }
  throw new ExprError('no return step reached');
}

/** Detectors a tool's checks make possible (an implicit corruption needs a check that catches it). */
export function supportedDetectors(t: Pick<MazeTool, 'checks' | 'entity' | 'primary'>): Detector[] {
  const c = t.checks;
  const out: Detector[] = [];
  if (c.nonNegative?.length) out.push('negative_value');
  if (t.entity && Object.values(c.echo ?? {}).includes(t.entity.arg)) out.push('entity_swap');
  if (c.sums?.length) out.push('sum_mismatch');
  if (c.timestamp && t.primary) out.push('stale_timestamp');
  if (Object.keys(c.ranges ?? {}).length) out.push('unit_scale');
  return out;
}

// A parsed, validated file per path and version: a user's library is loaded with the built-in files again,
// and a process may switch libraries between runs (docs are never mutated by the loader).
const parsedFiles = new Map<string, z.infer<typeof LibraryFile>>();
function readLibraryFile(path: string): z.infer<typeof LibraryFile> {
  const st = statSync(path);
  const key = `${path}\0${st.mtimeMs}\0${st.size}`;
  const cached = parsedFiles.get(key);
  if (cached) return cached;
  const doc = parseLibraryFile(path);
  parsedFiles.set(key, doc);
  return doc;
}

function parseLibraryFile(path: string): z.infer<typeof LibraryFile> {
  const text = readFileSync(path, 'utf8');
  const builtin = path.endsWith('.json') ? undefined : parsedBuiltin(path, text);
  const raw = builtin ? builtin.data : readJsonOrYaml(text, path);
  const r = LibraryFile.safeParse(raw);
  if (!r.success) {
    const { field, message } = firstZodIssue(r.error);
    return fail(path, field, message);
  }
  return r.data;
}

/** Library files of a folder (`*.yaml`, `*.yml`, `*.json`) in name order, or the one file given. */
export function libraryFiles(pathOrDir: string): string[] {
  let st;
  try {
    st = statSync(pathOrDir);
  } catch {
    return fail(pathOrDir, '', 'no such file or folder');
  }
  if (!st.isDirectory()) return [pathOrDir];
  return readdirSync(pathOrDir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => join(pathOrDir, f));
}

/**
 * Load library files into tools, in file order then tool order. Files loaded together share their tables and
 * functions, and `like` may name any earlier tool; a user's files are loaded after the built-in ones (index.ts).
 */
export function loadToolFiles(files: readonly string[]): MazeTool[] {
  const docs = files.map((f) => ({ file: f, doc: readLibraryFile(f) }));
  const tables: Record<string, unknown> = { ...WORLD_TABLES };
  const env: LibraryEnv = {
    tables,
    functions: new Map(),
    globals: scopeOf(tables),
    current: { tool: '', args: {}, ctx: { history: [] } },
  };
  const byName = new Map<string, { spec: ToolSpec; file: string }>();
  // tables and functions first, so any file's tools may use any file's definitions
  for (const { file, doc } of docs) {
    for (const [k, v] of Object.entries(doc.tables ?? {})) {
      if (Object.hasOwn(env.tables, k)) fail(file, `tables.${k}`, `table '${k}' is already defined`);
      env.tables[k] = v;
    }
    for (const k of Object.keys(doc.functions ?? {})) {
      if (env.functions.has(k) || FUNCTION_NAMES.has(k))
        fail(
          file,
          `functions.${k}`,
          `function '${k}' is already defined${FUNCTION_NAMES.has(k) ? ' (a built-in function)' : ''}`,
        );
      env.functions.set(k, { params: doc.functions![k]!.params, body: { k: 'lit', v: null } });
    }
  }
  for (const { file, doc } of docs) {
    for (const [k, f] of Object.entries(doc.functions ?? {}))
      env.functions.set(k, { params: f.params, body: compile(file, `functions.${k}.body`, f.body, env) });
  }
  env.fns = libraryFunctions(env);

  const out: MazeTool[] = [];
  for (const { file, doc } of docs) {
    (doc.tools ?? []).forEach((rawTool, i) => {
      const label = `tools[${i}]${typeof rawTool.name === 'string' ? ` (${rawTool.name})` : ''}`;
      const entry = ToolEntry.safeParse(rawTool);
      if (!entry.success) {
        const { field, message } = firstZodIssue(entry.error);
        return fail(file, `${label}${field ? `.${field}` : ''}`, message);
      }
      const { like, ...given } = entry.data;
      if (byName.has(given.name))
        fail(file, `${label}.name`, `tool '${given.name}' is already defined in ${byName.get(given.name)!.file}`);
      let merged: Record<string, unknown> = { domain: doc.domain, ...given };
      if (like) {
        const src = byName.get(like);
        if (!src) fail(file, `${label}.like`, `no earlier tool '${like}' to copy`);
        merged = {
          ...src.spec,
          domain: doc.domain ?? src.spec.domain,
          ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)),
        };
      }
      const spec = ToolSpec.safeParse(merged);
      if (!spec.success) {
        const { field, message } = firstZodIssue(spec.error);
        return fail(file, `${label}${field ? `.${field}` : ''}`, message);
      }
      byName.set(spec.data.name, { spec: spec.data, file: basename(file) });
      out.push(buildTool(file, label, spec.data, env));
    });
  }
  return out;
}

/** The options every tool schema must compile under (strict mode: unknown keywords and loose types refused). */
export const TOOL_SCHEMA_AJV = { strict: true, allErrors: false } as const;
// Created on first use: the walk (strict-schema.ts) accepts the schemas tool files use without compiling them.
let ajv: Ajv | undefined;
const validSchemas = new Set<string>();
function checkSchema(file: string, field: string, s: Record<string, unknown>): void {
  if (s.type !== 'object' || typeof s.properties !== 'object' || s.properties === null)
    fail(file, field, "must be a JSON Schema with type 'object' and properties");
  if (acceptsStrict(s)) return;
  // Anything the walk does not know is compiled: ajv accepts it or says what is wrong.
  const key = JSON.stringify(s);
  if (validSchemas.has(key)) return;
  try {
    (ajv ??= new Ajv(TOOL_SCHEMA_AJV)).compile(s);
  } catch (e) {
    fail(file, field, `not a valid JSON Schema: ${(e as Error).message}`);
  }
  validSchemas.add(key);
}

function buildTool(file: string, label: string, s: ToolSpec, env: LibraryEnv): MazeTool {
  if (!/^[a-z][a-z0-9_]*$/.test(s.domain)) fail(file, `${label}.domain`, 'must be lower-case letters, digits and _');
  checkSchema(file, `${label}.parameters`, s.parameters);
  checkSchema(file, `${label}.output`, s.output);
  const outProps = Object.keys(s.output.properties as object);
  const paramProps = Object.keys(s.parameters.properties as object);
  const c = s.checks ?? {};
  const outField = (f: string, where: string) => {
    if (!outProps.includes(f)) fail(file, `${label}.${where}`, `'${f}' is not a field of the output`);
  };
  const argField = (a: string, where: string) => {
    if (!paramProps.includes(a)) fail(file, `${label}.${where}`, `'${a}' is not a parameter`);
  };
  for (const f of c.non_negative ?? []) outField(f, 'checks.non_negative');
  for (const [o, a] of Object.entries(c.echo ?? {})) {
    outField(o, `checks.echo.${o}`);
    argField(a, `checks.echo.${o}`);
  }
  for (const x of c.sums ?? []) {
    outField(x.items, 'checks.sums.items');
    outField(x.total, 'checks.sums.total');
  }
  if (c.timestamp) {
    outField(c.timestamp.field, 'checks.timestamp.field');
    if (c.timestamp.arg !== undefined) argField(c.timestamp.arg, 'checks.timestamp.arg');
  }
  for (const [f, [lo, hi]] of Object.entries(c.ranges ?? {})) {
    outField(f, `checks.ranges.${f}`);
    if (!(lo < hi)) fail(file, `${label}.checks.ranges.${f}`, 'the low end must be below the high end');
  }
  if (s.primary !== undefined) outField(s.primary, 'primary');
  if (s.entity) argField(s.entity.arg, 'entity.arg');

  const steps = compileSteps(file, label, s.run, env);
  const entityValues = s.entity ? compile(file, `${label}.entity.values`, s.entity.values, env) : undefined;
  const tool: MazeTool = {
    name: s.name,
    domain: s.domain,
    category: s.category,
    description: s.description,
    parameters: s.parameters,
    output: s.output,
    ...(s.substitute_set ? { substituteSet: s.substitute_set } : {}),
    checks: {
      ...(c.non_negative ? { nonNegative: c.non_negative } : {}),
      ...(c.echo ? { echo: c.echo } : {}),
      ...(c.sums ? { sums: c.sums } : {}),
      ...(c.timestamp ? { timestamp: c.timestamp } : {}),
      ...(c.ranges ? { ranges: c.ranges } : {}),
    },
    ...(s.entity && entityValues
      ? {
          entity: {
            arg: s.entity.arg,
            values: () => {
              const v = withCall(env, { tool: s.name, args: {}, ctx: { history: [] } }, () =>
                evalExpr(entityValues, env.globals, env.fns!),
              );
              if (!Array.isArray(v)) throw new ExprError(`tool ${s.name}: entity.values must give a list`);
              return v.map(String);
            },
          },
        }
      : {}),
    ...(s.primary !== undefined ? { primary: s.primary } : {}),
    run(args, ctx) {
      try {
        return withCall(env, { tool: s.name, args, ctx }, () => runSteps(env, steps, args, ctx));
      } catch (e) {
        if (e instanceof ExprError) return toolError(`tool ${s.name} could not run: ${e.message}`);
        throw e;
      }
    },
  };
  const supported = supportedDetectors(tool);
  for (const m of s.failure_modes ?? []) {
    if (!supported.includes(m))
      fail(
        file,
        `${label}.failure_modes`,
        `'${m}' needs a check that catches it (this tool's checks support: ${supported.join(', ') || 'none'})`,
      );
  }
  if (s.failure_modes) tool.failureModes = s.failure_modes;
  return tool;
}
