import { readFileSync } from 'node:fs';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';

/**
 * Every CLI run starts a test worker that loads the suite's modules, and a main process that loads the same suite
 * (harness/vitest/run.ts): a package loaded there for nothing is paid on every run, and `npm test` makes about sixty.
 * This test reads the static import graph (esbuild's metafile; nothing is written) and checks that the model SDK and
 * the local sandbox pool with execa load only with their first use — a request, a pool made in this process — not
 * with the modules a run's processes import.
 */

const ROOT = fromRoot();

/** The packages reachable from `entry` through static imports only (a dynamic `import()` is not followed). */
async function staticPackages(entry: string): Promise<Set<string>> {
  return (await staticGraph(entry)).packages;
}

/** The packages and the repository's own files reachable from `entry` through static imports only. */
async function staticGraph(entry: string): Promise<{ packages: Set<string>; files: Set<string> }> {
  const r = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    absWorkingDir: ROOT,
    logLevel: 'silent',
  });
  const inputs: Metafile['inputs'] = r.metafile.inputs;
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of inputs[file]?.imports ?? []) {
      if (i.kind !== 'import-statement') continue;
      if (i.external) packages.add(i.path);
      else visit(i.path);
    }
  };
  visit(entry);
  return { packages, files: seen };
}

describe('what a run loads at start', () => {
  it.each([
    'harness/toolhop/suite.ts',
    'harness/vitest/suite-tests.ts',
    'harness/kit/runtime.ts',
    'harness/kit/sandboxed.ts',
  ])('%s loads neither the openai SDK nor execa before their first use', async (entry) => {
    const packages = [...(await staticPackages(entry))];
    expect(packages).not.toContain('openai');
    expect(packages).not.toContain('execa');
    expect(packages.filter((p) => p.startsWith('openai/')).every((p) => p === 'openai/core/error')).toBe(true);
  });

  // Vitest's main process under the CLI: what it loads before Vitest starts the test worker is on every run's path.
  it.each([
    'harness/toolhop/command.ts',
    'harness/cli/suite-command.ts',
    'harness/vitest/run.ts',
    'reporters/toolgauge.ts',
    'harness/sandbox/pool.ts',
  ])(
    "%s loads neither Vitest (its Node API loads after the sandbox starts; its test runner never) nor execa, YAML or the local engine's chat templates",
    async (entry) => {
      const packages = [...(await staticPackages(entry))];
      for (const p of ['vitest', 'vitest/node', 'vite', 'execa', 'yaml', '@huggingface/jinja'])
        expect(packages, p).not.toContain(p);
    },
  );

  // Vitest loads the reporter with every run of this repository's configuration, unit runs included: the end of an
  // eval run (the suites, the plan with its parsers, the reports) loads only once eval files ran.
  it('reporters/toolgauge.ts loads neither the kit, the parsers nor a suite before an eval run ends', async () => {
    const { files } = await staticGraph('reporters/toolgauge.ts');
    expect([...files].filter((f) => /^harness\/(kit|parse|calls|report|stats|builtin)\//.test(f))).toEqual([]);
    expect([...(await staticGraph('reporters/eval-end.ts')).files]).toContain('harness/kit/run-end.ts');
  });

  // Every plain `vitest run` here bundles and evaluates vitest.config.ts with the modules it imports. A call of
  // import.meta's resolve among them makes Vite register Node's module hooks (on Node 20 a thread every later import
  // of Vitest's main process waits on); Vite finds it by this pattern in the text.
  it("vitest.config.ts's own modules hold no call of import.meta's resolve", async () => {
    const { files } = await staticGraph('vitest.config.ts');
    expect(files.size).toBeGreaterThan(3);
    const calls = [...files].filter((f) => /import\.meta\s*\.\s*resolve/.test(readFileSync(fromRoot(f), 'utf8')));
    expect(calls).toEqual([]);
  });

  // A project that `extends` the configuration file has Vite load it once more, each project even when `--project`
  // selects another; each names the toolgauge plugin itself instead (Vitest calls the projects' plugins).
  it("vitest.config.ts's projects do not extend the file, and each keeps the toolgauge reporter", async () => {
    const config = (await import('../../vitest.config.ts')).default as {
      test: { projects: Array<{ extends?: unknown; plugins?: Array<{ name: string }>; test: { name: string } }> };
    };
    const projects = config.test.projects;
    expect(projects.map((p) => p.test.name)).toEqual(['unit', 'package', 'eval']);
    for (const p of projects) {
      expect(p.extends, p.test.name).toBeUndefined();
      expect(
        p.plugins?.map((x) => x.name),
        p.test.name,
      ).toContain('toolgauge');
    }
  });

  // The agent SDKs are optional peer dependencies: only their own subpaths (toolgauge/ai-sdk, toolgauge/openai-agents)
  // load them, so a project without them imports toolgauge.
  it('the main entry (harness/api/index.ts) loads neither the AI SDK nor the OpenAI Agents SDK', async () => {
    const packages = [...(await staticPackages('harness/api/index.ts'))];
    expect(packages.filter((p) => /^(ai|@ai-sdk\/.*|@openai\/agents.*)$/.test(p))).toEqual([]);
    expect([...(await staticPackages('harness/api/ai-sdk.ts'))]).toContain('@ai-sdk/openai-compatible');
  });

  // ToolHop's Agents SDK team (`--framework openai-agents`) loads the SDK with its first member run, not with the
  // suite: every other ToolHop run, and a project without the SDK, never load it.
  it.each(['harness/toolhop/suite.ts', 'harness/toolhop/command.ts', 'harness/toolhop/team.ts'])(
    '%s loads the OpenAI Agents SDK only when a run asks for it',
    async (entry) => {
      const { packages, files } = await staticGraph(entry);
      expect([...packages].filter((p) => p.startsWith('@openai/agents'))).toEqual([]);
      expect([...files].filter((f) => f.startsWith('harness/adapters/'))).toEqual([]);
    },
  );

  // `toolgauge eval` runs a user's evals: the built-in suites' definitions (and the comparison of saved runs, which
  // reads them) load only for `--model a,b`'s comparison, not on every eval run.
  it('harness/cli/commands/eval.ts loads no built-in suite definition', async () => {
    const { files } = await staticGraph('harness/cli/commands/eval.ts');
    expect([...files].filter((f) => /^harness\/(builtin|toolhop|maze|probe|bfcl|apibank)\//.test(f))).toEqual([]);
  });
});

// The global fetch's first call loads undici's client (about 0.02 CPU-s); a describeEval run's test worker makes its
// requests — the cases' registration with the simulator, the model's — through the model client's node:http fetch.
it("a describeEval run's test worker never calls the global fetch", async () => {
  const { files } = await staticGraph('harness/kit/eval/suite.ts');
  const callers = [...files].filter((f) => /(?<![\w.$])fetch\(/.test(readFileSync(fromRoot(f), 'utf8')));
  expect(callers).toEqual([]);
});
