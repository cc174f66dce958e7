import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadBuiltinSuites } from '../../harness/builtin/load.ts';
import { main } from '../../harness/cli/main.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { planRun, settingsOf } from '../../harness/kit/plan.ts';
import { suiteNamed } from '../../harness/kit/registry.ts';
import { readSuiteFolder, suiteFolders, type SuiteFolder } from '../../harness/kit/suite-folders.ts';
import { mapCase } from '../../harness/view/cases.ts';
import { loadRunDir } from '../../harness/view/load.ts';

/**
 * A suite is one folder that declares itself (docs/adding-a-suite.md): a throwaway suite `demo`, written to a
 * temporary copy of the folder layout, is picked up by the CLI's usage and dispatch, the kit's registry, the run's
 * configuration (its settings), the CLI bundle's worker entries and the viewer (its case view), with no list edited
 * anywhere. (The layer check's side is in tests/hygiene/layers.test.ts.) All in process: no CLI child, no Vitest run.
 */

// The launcher is plain JavaScript (no declarations): its one function this test uses, typed here.
const { workerEntries } = (await import(pathToFileURL(fromRoot('bin', 'cli-bundle.mjs')).href)) as {
  workerEntries(root: string): Record<string, string>;
};
const FLAGS_MODULE = pathToFileURL(fromRoot('harness', 'kit', 'flags', 'flags.ts')).href;
const CONFIG_MODULE = pathToFileURL(fromRoot('harness', 'kit', 'flags', 'config-file.ts')).href;
const CASE_VIEW_MODULE = pathToFileURL(fromRoot('harness', 'kit', 'case-view', 'index.ts')).href;
let root: string;
let demo: SuiteFolder;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'tg-suite-folder-'));
  const dir = join(root, 'harness', 'demo');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'suite.json'),
    JSON.stringify({ name: 'demo', order: 99, usage: ['demo     [--n N]   a throwaway suite'] }),
  );
  writeFileSync(
    join(dir, 'suite.ts'),
    `import { conversationSections, text } from ${JSON.stringify(CASE_VIEW_MODULE)};
const caseView = {
  map(input) {
    const problems = [];
    const notes = input.files?.notes;
    return {
      tags: [\`size=\${text(input.meta.size)}\`], cause: input.meta.pass ? null : 'demo miss',
      input: text(input.trace?.question), expected: text(input.meta.gold), predicted: text(input.meta.answer),
      scorers: [{ name: 'demo exact', value: input.meta.pass ? '1' : '0', reason: null }],
      sections: [
        { kind: 'pairs', title: 'Demo answer', rows: [['gold', text(input.meta.gold)], ['answer', text(input.meta.answer)]] },
        ...(notes ? [{ kind: 'text', title: 'Demo notes', text: text(notes.note) }] : []),
        ...conversationSections('Demo transcript', input.trace?.messages, undefined, 'trace', problems),
      ],
      problems,
    };
  },
  extraFiles: (trace) => ({ notes: trace.replace(/\\.json$/, '.notes.json') }),
};
export default {
  caseView,
  name: 'demo', title: 'Demo', outputs: [], parts: 1,
  settings: (env) => ({ n: Number(env.DEMO_N ?? 1) }),
  outDir: () => 'results/demo', load: () => ({ instances: [], dataset: null }), testName: (i) => i.id,
  run: async () => { throw new Error('not run here'); }, failed: (i, trial, message) => ({ suite: 'demo', id: i.id, trial, error: message, pass: false }),
  verdict: (m) => ({ pass: m.pass, message: '', summary: '' }), aggregator: {}, config: () => ({}), metricNames: () => ['pass_rate'],
};
`,
  );
  writeFileSync(
    join(dir, 'command.ts'),
    `import { parseFlags } from ${JSON.stringify(FLAGS_MODULE)};
import { applyConfig } from ${JSON.stringify(CONFIG_MODULE)};
export const USAGE = 'toolgauge demo [--n N] [--config FILE]';
const FLAGS = { n: { type: 'string' } };
export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('demo', applyConfig('demo', argv, FLAGS, {}, process.env), FLAGS);
  return 40 + Number(values.n ?? 0);
}
`,
  );
  mkdirSync(join(root, 'harness', 'not-a-suite'));
  demo = readSuiteFolder(dir);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

afterEach(() => vi.restoreAllMocks());

/** stdout and stderr of one in-process call of the CLI's main. */
async function cli(
  argv: string[],
  folders: readonly SuiteFolder[],
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  const code = await main(argv, folders);
  vi.restoreAllMocks();
  return { code, out, err };
}

describe('a suite folder declares itself', () => {
  it('the registry finds the folder by its suite.json (and nothing else), after the built-in ones', () => {
    expect(suiteFolders(join(root, 'harness')).map((f) => f.name)).toEqual(['demo']);
    expect(suiteFolders().map((f) => f.name)).toEqual(['toolhop', 'maze', 'probe', 'bfcl', 'apibank']);
  });

  it('the CLI lists it in its usage and dispatches to its command (flags parsed by the command)', async () => {
    const folders = [...suiteFolders(), demo];
    const help = await cli(['--help'], folders);
    expect(help.out).toMatch(/^ {2}toolgauge demo {5}\[--n N\] {3}a throwaway suite$/m);
    expect(help.out).toMatch(/^ {2}toolgauge toolhop /m);
    expect((await cli(['demo', '--n', '2'], folders)).code).toBe(42);
    expect((await cli(['demo', '--help'], folders)).out).toBe('toolgauge demo [--n N] [--config FILE]\n');
    const bad = await cli(['demo', '--m', '1'], folders);
    expect([bad.code, bad.err]).toEqual([2, expect.stringMatching(/^toolgauge demo: .*--m/)]);
    expect((await cli(['nope'], folders)).err).toMatch(/expected one of toolhop, maze, probe, bfcl, apibank, demo, /);
    // without the folder in the registry, there is no such command
    expect((await cli(['demo'], suiteFolders())).code).toBe(2);
  });

  it("a --config file may hold a section for it (no list of sections edited), and other suites' sections are skipped", async () => {
    const folders = [...suiteFolders(), demo];
    const file = join(root, 'run.yaml');
    writeFileSync(file, 'n: 1\ndemo:\n  n: 3\ntoolhop:\n  limit: 2\n');
    expect((await cli(['demo', '--config', file], folders)).code).toBe(43);
    // a section named like no command is still an unknown key
    writeFileSync(file, 'n: 1\nnosuchsuite:\n  n: 3\n');
    const bad = await cli(['demo', '--config', file], folders);
    expect([bad.code, bad.err]).toEqual([2, expect.stringMatching(/nosuchsuite/)]);
  });

  it('the kit registers its definition and the run configuration parses its settings', async () => {
    const loaded = await loadBuiltinSuites({ TOOLGAUGE_SUITES: 'demo' }, [...suiteFolders(), demo]);
    expect(loaded.map((s) => s.name)).toEqual(['demo']);
    expect(suiteNamed('demo')?.title).toBe('Demo');
    const kc = planRun({ DEMO_N: '7' }, loaded);
    expect(settingsOf(kc, loaded[0]!)).toEqual({ n: 7 });
  });

  it('the CLI bundle makes its definition a worker entry (what the eval files import)', () => {
    expect(workerEntries(root)).toEqual({
      'w-suite-tests': 'harness/vitest/suite-tests.ts',
      'w-demo': 'harness/demo/suite.ts',
      // the public API and the reporter (what a user's eval file and `toolgauge eval` load), whatever the suites
      'w-api-index': 'harness/api/index.ts',
      'w-api-matchers': 'harness/api/matchers.ts',
      'w-api-builtin': 'harness/api/builtin.ts',
      'w-api-ai-sdk': 'harness/api/ai-sdk.ts',
      'w-api-openai-agents': 'harness/api/openai-agents.ts',
      'w-reporter': 'reporters/toolgauge.ts',
    });
    expect(Object.values(workerEntries(fromRoot()))).toContain('harness/toolhop/suite.ts');
  });

  it('the viewer shows its cases with the case view it declares (a file beside the trace included)', async () => {
    await loadBuiltinSuites({ TOOLGAUGE_SUITES: 'demo' }, [...suiteFolders(), demo]);
    const meta = { suite: 'demo', id: 'd1', trial: 0, error: null, pass: false, size: 3, gold: '42', answer: '41' };
    const trace = { question: 'six times seven?', messages: [{ role: 'assistant', content: '41' }] };
    const c = mapCase({ suite: 'demo', meta, trace });
    expect(c.row).toMatchObject({ key: 'd1#0', status: 'fail', tags: ['size=3'], cause: 'demo miss', predicted: '41' });
    expect(c.detail).toMatchObject({ input: 'six times seven?', expected: '42', predicted: '41' });
    expect(c.detail.scorers).toEqual([{ name: 'demo exact', value: '0', reason: null }]);
    expect(c.detail.sections.map((s) => s.title)).toEqual([
      'Demo answer',
      'Demo transcript',
      'Journal line (instances.jsonl)',
    ]);

    // read from an output directory: the viewer reads the file the case view names beside the trace
    const out = join(root, 'demo-run');
    mkdirSync(join(out, 'traces'), { recursive: true });
    writeFileSync(join(out, 'instances.jsonl'), `${JSON.stringify({ ...meta, trace: 'traces/d1.json' })}\n`);
    writeFileSync(join(out, 'traces', 'd1.json'), JSON.stringify(trace));
    writeFileSync(join(out, 'traces', 'd1.notes.json'), JSON.stringify({ note: 'off by one' }));
    const run = loadRunDir(out);
    expect(run.problems.filter((p) => !p.file.endsWith('summary.json'))).toEqual([]);
    expect(run.cases[0]!.detail.sections).toContainEqual({ kind: 'text', title: 'Demo notes', text: 'off by one' });
  });

  it('a declaration that does not match its folder is one line naming the file and the field', () => {
    const dir = join(root, 'harness', 'other');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'suite.json'), JSON.stringify({ name: 'demo', order: 1, usage: ['x'] }));
    expect(() => readSuiteFolder(dir)).toThrow(
      `${join(dir, 'suite.json')}: name: 'demo' is not the folder's name 'other'`,
    );
    writeFileSync(join(dir, 'suite.json'), JSON.stringify({ name: 'other', order: 1, usage: [] }));
    expect(() => readSuiteFolder(dir)).toThrow(/suite\.json: usage: /);
    rmSync(dir, { recursive: true });
  });
});
