import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { suiteFolders } from '../../harness/kit/suite-folders.ts';

/**
 * Configuration is read from the environment at the edges only — the command line, the Vitest adapter's global setup
 * and config (under plain `vitest run` they are the edge), the run's configuration parser — and handed to library
 * code as values (docs/ARCHITECTURE.md, "Configuration"). This test reads the source: a module under harness/ or
 * reporters/ that reads `process.env` must be an edge named here, with its reason.
 */

const ROOT = fromRoot();

/** Edges (a folder ends with '/'), each with the reason it may read the environment. */
const ENV_EDGES: Record<string, string> = {
  'harness/cli/':
    "the command line (and each suite folder's command.ts): flags and environment become a run configuration",
  'harness/vitest/global-setup.ts': 'the edge under plain `vitest run`: parses the RunPlan the workers receive',
  'harness/vitest/context.ts':
    "a worker without a provided RunPlan (a project's own eval file run by Vitest) parses its own at the edge",
  'harness/builtin/global-setup.ts':
    "the built-in suites' Vitest global setup (an edge under plain `vitest run`): TOOLGAUGE_SUITES names the run's suites",
  'reporters/toolgauge.ts': "the reporter runs in Vitest's main process, an edge of its own",
  'harness/vitest/prefork.ts':
    "starts Vitest's test worker early with the environment Vitest gives it, which Vitest takes from this process's own",
  'harness/vitest/prethread.ts':
    "starts Vitest's test worker thread early with the environment Vitest gives it, which Vitest takes from this process's own",
  'harness/vitest/run.ts':
    "sets rolldown's allocator option (harness/vitest/native-allocator.ts) in this process's environment before Vite loads; reads no setting",
  'harness/vitest/watch.ts':
    "sets rolldown's allocator option (harness/vitest/native-allocator.ts) in this process's environment before Vite loads; reads no setting",
  'harness/engine/child.mjs': "the entry point of the engine's child process: its options arrive in its environment",
  'harness/engine/host.ts':
    "passes the parent's environment (minus NODE_OPTIONS) on to the engine child; reads no setting",
  'harness/mcp/config.ts':
    "a config file's mcpServers entry may name environment variables as $VAR placeholders (as MCP clients' files do): filled in where the server starts",
  // Test support (not used by runs): interpreters and data locations of the tests.
  'harness/core/pyliteral/python-oracle.ts': "test support: the tests' reference interpreter (TOOLGAUGE_PYTHON)",
  'harness/apibank/env/reference-oracle.ts': "test support: the reference scorer's checkout (TOOLGAUGE_APIBANK_REF)",
  'harness/apibank/env/testkit.ts': 'test support',
  'harness/bfcl/testkit.ts': 'test support',
  'harness/core/testkit.ts': 'test support',
};

/**
 * The modules that may write process.env, each with its reason. The CLI hands a built-in suite's run its configuration
 * as a value (the RunPlan Vitest provides to the workers); it never passes options by writing the environment.
 */
const ENV_WRITERS: Record<string, string> = {
  'harness/vitest/global-setup.ts':
    "under plain `vitest run`: marks the run id it chose as this process's (harness/kit/plan.ts, launcherRunId)",
};

/** Whether a module's source writes process.env: assigns, deletes or merges into it, hands it to a writer, or makes it a parameter's default (which the callee may write). */
function writesEnv(src: string): boolean {
  const code = src
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l))
    .join('\n');
  return /\bprocess\.env(\.\w+|\[[^\]]+\])\s*(=(?!=)|\?\?=|\|\|=)|\bdelete\s+process\.env\b|Object\.assign\(\s*process\.env\b|\b(markRunId|flagsToEnv|engineEnv)\([^)]*\bprocess\.env\b|\benv\s*:\s*NodeJS\.ProcessEnv\s*=\s*process\.env\b/.test(
    code,
  );
}

/** Whether a module's source reads the environment (comment lines aside). */
function readsEnv(src: string): boolean {
  const code = src
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l))
    .join('\n');
  return /\bprocess\s*\.\s*env\b|\bprocess\s*\[\s*['"`]env['"`]\s*\]|\{[^}]*\benv\b[^}]*\}\s*=\s*process\b/.test(code);
}

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (/\.(ts|mjs)$/.test(name) && !/\.test\.ts$|\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** A suite folder's `command.ts` is a module of the command line that lives with its suite (harness/kit/suite-folders.ts). */
const SUITE_COMMANDS = new Set(suiteFolders(join(ROOT, 'harness')).map((f) => `harness/${f.name}/command.ts`));
const edge = (rel: string) =>
  SUITE_COMMANDS.has(rel)
    ? 'harness/cli/'
    : Object.keys(ENV_EDGES).find((k) => (k.endsWith('/') ? rel.startsWith(k) : rel === k));
const readers = [...files(join(ROOT, 'harness')), ...files(join(ROOT, 'reporters'))]
  .filter((f) => readsEnv(readFileSync(f, 'utf8')))
  .map((f) => relative(ROOT, f));

describe('process.env is read at the edges only', () => {
  it('no library module reads process.env', () => {
    expect(readers.filter((r) => !edge(r))).toEqual([]);
  });

  it('every named edge still reads it (the list holds no stale entry)', () => {
    const stale = Object.keys(ENV_EDGES).filter(
      (k) => !readers.some((r) => (k.endsWith('/') ? r.startsWith(k) : r === k)),
    );
    expect(stale).toEqual([]);
  });

  it('only the named modules write process.env: the CLI passes a run its options as values', () => {
    const writers = [...files(join(ROOT, 'harness')), ...files(join(ROOT, 'reporters'))]
      .filter((f) => writesEnv(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(writers.filter((w) => !(w in ENV_WRITERS) && !/(^|\/)testkit\.ts$/.test(w))).toEqual([]);
    expect(Object.keys(ENV_WRITERS).filter((k) => !writers.includes(k))).toEqual([]);
    expect(writesEnv('Object.assign(process.env, env);')).toBe(true);
    expect(writesEnv("process.env.TOOLGAUGE_CLI = '1';")).toBe(true);
    expect(writesEnv('delete process.env.OPENAI_API_KEY;')).toBe(true);
    expect(writesEnv('markRunId(process.env, kc.runId);')).toBe(true);
    expect(writesEnv('export function f(values, env: NodeJS.ProcessEnv = process.env) {}')).toBe(true);
    expect(writesEnv("const x = process.env.A === '1';\nconst env = { ...process.env };\nenv.A = '1';")).toBe(false);
  });

  it('the check sees the ways a module reads the environment, and not a comment', () => {
    expect(readsEnv("const x = process.env.TOOLGAUGE_X === '0';")).toBe(true);
    expect(readsEnv("const x = process.env['TOOLGAUGE_X'];")).toBe(true);
    expect(readsEnv('const { env } = process;')).toBe(true);
    expect(readsEnv('function f(env = process.env) {}')).toBe(true);
    expect(
      readsEnv('// TOOLGAUGE_X: process.env is read at the edge\n * process.env in a doc comment\nconst y = 1;'),
    ).toBe(false);
  });

  it("the sandbox switches and BFCL's interpreter are values, not environment reads (pyodide-backend, confine, executor)", () => {
    for (const f of ['harness/sandbox/pyodide-backend.ts', 'harness/sandbox/confine.ts'])
      expect(readers).not.toContain(f);
    expect(readFileSync(join(ROOT, 'harness/bfcl/executor.ts'), 'utf8')).not.toMatch(/process\.env\.TOOLGAUGE_PYTHON/);
  });
});
