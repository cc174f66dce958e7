// Methods by name, as `--method` names them. `baseline` and `pa_tool` are built in (the probe builds PA-Tool with the
// run's settings); a user module registers its own with `registerMethod`, or through `--method-module FILE`, whose
// default export (or `method` export) is a Method — the way `--agent-module` adds an agent (docs/probe.md, "Methods").

import type { Method } from './types.ts';

/** The methods toolgauge has built in; their names cannot be registered. */
export const BUILTIN_METHODS = ['baseline', 'pa_tool'] as const;

/** What a method module exports: a Method, with a line for the docs and the report. */
export type MethodDefinition = Method & { readonly description?: string };

const NAME = /^[A-Za-z0-9_-]+$/;
const registry = new Map<string, MethodDefinition>();

/** Register a method under its name; a built-in name cannot be taken, another registration of a user name replaces it. */
export function registerMethod(m: MethodDefinition): void {
  if (!m || typeof m !== 'object' || typeof m.name !== 'string' || typeof m.prepare !== 'function')
    throw new TypeError(
      'a method is an object { name: string, prepare(request, context) => { request, toOriginal, meta } }',
    );
  if (!NAME.test(m.name)) throw new TypeError(`method name '${m.name}': use letters, digits, - and _`);
  if ((BUILTIN_METHODS as readonly string[]).includes(m.name))
    throw new TypeError(`method name '${m.name}' is built in`);
  registry.set(m.name, m);
}

/** A registered user method (built-in methods are built by their suite, with its settings). */
export function methodNamed(name: string): MethodDefinition | undefined {
  return registry.get(name);
}

/** Every method name this process knows: the built-in ones, then the registered ones. */
export function methodNames(): string[] {
  return [...BUILTIN_METHODS, ...registry.keys()];
}

/** Load a module whose default export (or `method` export) is a Method, and register it; returns its name. */
export async function loadMethodModule(fileUrl: string): Promise<string> {
  const mod = (await import(fileUrl)) as { default?: unknown; method?: unknown };
  const m = (mod.default ?? mod.method) as MethodDefinition | undefined;
  if (!m) throw new TypeError(`${fileUrl}: no default export (a method: { name, prepare(request, context) })`);
  registerMethod(m);
  return m.name;
}
