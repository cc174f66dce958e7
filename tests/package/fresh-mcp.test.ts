import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { findNodeLlamaCpp } from '../../harness/engine/resolve.ts';
import { validSummary } from '../../harness/report/summary.ts';
import type { CaseDetail, Section, ViewData } from '../../harness/view/model.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { freshProject } from '../../scripts/fresh-project.mjs';
import { readJson, readLines, tempDir } from '../helpers/cli.ts';
import { packed } from './pack.ts';
import { projectShell } from './project-shell.ts';

// MCP servers in an eval as a user gets them: the packed toolgauge in a fresh ESM project, with the eval of
// docs/mcp.md (its titled block memory-fs.eval.ts) over @modelcontextprotocol/server-filesystem and server-memory
// (the repository's devDependencies, linked into the project as npm would install them). Four CLI runs: the page's
// command on sim:oracle and sim:wrong_arg, its view exported, a test GGUF made and the same eval on it.
// What the servers must return is written here from the page's data and the servers' documented behaviour; which
// server processes ran is read from a `node` on PATH that logs its own pid before it becomes the server.

const PAGE = readFileSync(fromRoot('docs', 'mcp.md'), 'utf8');
const EXAMPLE = /^```ts memory-fs\.eval\.ts\n([\s\S]*?)^```/m.exec(PAGE)?.[1];
const COMMAND = /^(npx toolgauge eval memory-fs\.eval\.ts --model sim:oracle)$/m.exec(PAGE)?.[1];
const VIEW = /^(npx toolgauge view results\/memory-fs)$/m.exec(PAGE)?.[1];
const NOTE = 'The key is under the mat.';
const ADA = { name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program'] };
const ENGINE = findNodeLlamaCpp().found;

interface Trace {
  expectedTools: Array<{ name: string; arguments: Record<string, unknown> }>;
  output: {
    answer: string | null;
    toolCalls: Array<{ name: string; arguments: Record<string, unknown>; result: string | null; error: string | null }>;
  };
}
interface Instance {
  id: string;
  error: string | null;
  reason: string | null;
  trace: string;
  scores: Record<string, number | null>;
}

const root = tempDir('package-mcp');
const startLog = join(root, 'server-starts.log');
let dir = '';

beforeAll(async () => {
  dir = freshProject(join(root, 'esm'), { type: 'module', ...(await packed()) }) as string;
  writeFileSync(join(dir, 'memory-fs.eval.ts'), EXAMPLE ?? '');
  // The eval's temporary folders go inside the project, so the export's check for the project's path covers the
  // paths the servers were given and answered with.
  mkdirSync(join(dir, 'tmp'));
  // `node` as the eval's servers find it on PATH: it notes the pid and command line of a server, then is that server.
  const shim = join(root, 'shim');
  mkdirSync(shim);
  writeFileSync(
    join(shim, 'node'),
    `#!/bin/sh\ncase "$*" in *@modelcontextprotocol/server-*) echo "$$ $*" >> '${startLog}';; esac\nexec '${process.execPath}' "$@"\n`,
  );
  chmodSync(join(shim, 'node'), 0o755);
  // The local engine, installed beside toolgauge as docs/engine.md says (`npm install node-llama-cpp@3.21.1`).
  const llama = join(dir, 'node_modules', 'node-llama-cpp');
  if (ENGINE && !existsSync(llama)) symlinkSync(ENGINE.dir, llama);
}, 300_000);

/** A command line in the project (projectShell), with the shim folder first on PATH and the project's own TMPDIR. */
const sh = (line: string, env: Record<string, string> = {}) =>
  projectShell(dir, line, { PATH: `${join(root, 'shim')}:${process.env.PATH}`, TMPDIR: join(dir, 'tmp'), ...env });

/**
 * The page's command on sim:oracle and sim:wrong_arg (one CLI run), made once for the tests that read it, whichever
 * runs first: the server processes it started, and its result.
 */
let simRun: Promise<{ r: Awaited<ReturnType<typeof sh>>; starts: Array<{ pid: number; server: string }> }> | undefined;
const simRuns = () =>
  (simRun ??= (async () => {
    const before = serverStarts(0).lines;
    const r = await sh(COMMAND!.replace('sim:oracle', 'sim:oracle,sim:wrong_arg'));
    return { r, starts: serverStarts(before).starts };
  })());

/** The server processes started since the log had `from` lines: pid and which server. */
function serverStarts(from: number): { lines: number; starts: Array<{ pid: number; server: string }> } {
  const lines = existsSync(startLog) ? readFileSync(startLog, 'utf8').split('\n').filter(Boolean) : [];
  const starts = lines.slice(from).map((l) => ({
    pid: Number(l.split(' ')[0]),
    server: /@modelcontextprotocol\/(server-\w+)/.exec(l)![1]!,
  }));
  return { lines: lines.length, starts };
}

/** Still running as an MCP server (Linux's /proc; a pid taken since by another process does not count). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('@modelcontextprotocol/server-');
  } catch {
    return false;
  }
}

/** Processes whose command line names the project (the CLI, its workers, the engine, a server given a folder there). */
function runningIn(folder: string): string[] {
  if (!existsSync('/proc/self/cmdline')) return [];
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ');
        return cmd.includes(folder) ? [`${d} ${cmd}`] : [];
      } catch {
        return [];
      }
    });
}

/** One run's summary, metrics, instances by id and a case's trace. */
function runOf(outDir: string) {
  const summary = validSummary(readJson(join(outDir, 'summary.json')));
  const values: Record<string, number | null> = {};
  for (const [name, m] of Object.entries(summary.metrics)) if ('value' in m) values[name] = m.value as number | null;
  const instances = new Map(readLines<Instance>(join(outDir, 'instances.jsonl')).map((r) => [r.id, r]));
  const trace = (id: string) => readJson<Trace>(join(outDir, instances.get(id)!.trace));
  return { summary, values, instances, trace };
}

describe('docs/mcp.md: the eval over server-filesystem and server-memory in a fresh project', () => {
  it('the page has the eval file, its command on sim:oracle and its view command', () => {
    expect(EXAMPLE).toMatch(/from 'toolgauge'/);
    expect(COMMAND).toBeDefined();
    expect(VIEW).toBeDefined();
  });

  it("sim:oracle passes with the servers' real results in the traces; sim:wrong_arg fails tool_calls; every server process started is gone after the run", async () => {
    const { r, starts } = await simRuns();
    expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);

    const oracle = runOf(join(dir, 'results', 'memory-fs', 'sim_oracle'));
    expect(oracle.summary.counts).toMatchObject({ runs: 2, passed: 2, errors: 0 });
    expect(oracle.values).toMatchObject({ pass_rate: 1, tool_calls: 1, answer_includes: 1 });
    // read-note: the file server read the note the eval wrote into its folder.
    const read = oracle.trace('read-note').output.toolCalls;
    expect(read.map((c) => [c.name, c.error])).toEqual([['read_text_file', null]]);
    const notes = dirname(String(read[0]!.arguments.path));
    expect(notes.startsWith(join(dir, 'tmp', 'notes-'))).toBe(true);
    expect(read[0]!.result).toBe(readFileSync(join(notes, 'notes.txt'), 'utf8'));
    expect(read[0]!.result).toBe(NOTE);
    // remember: the memory server created the entity, then found it, and kept it in the file the eval named.
    const remember = oracle.trace('remember').output.toolCalls;
    expect(remember.map((c) => [c.name, c.error])).toEqual([
      ['create_entities', null],
      ['search_nodes', null],
    ]);
    expect(JSON.parse(remember[0]!.result!)).toEqual([ADA]);
    expect(JSON.parse(remember[1]!.result!)).toEqual({ entities: [ADA], relations: [] });
    const stored = readLines<Record<string, unknown>>(join(notes, 'memory.jsonl'));
    expect(stored).toEqual([{ type: 'entity', ...ADA }]);

    // sim:wrong_arg: the first call of each case has one argument changed; the servers answer that call as made.
    const wrong = runOf(join(dir, 'results', 'memory-fs', 'sim_wrong_arg'));
    expect(wrong.summary.counts).toMatchObject({ runs: 2, passed: 0, errors: 0 });
    for (const id of ['read-note', 'remember']) {
      const i = wrong.instances.get(id)!;
      expect(i.scores.tool_calls, id).toBeLessThan(1);
      expect(i.reason, id).toMatch(/^tool_calls: call 1 (read_text_file: path|create_entities: entities)/);
      const t = wrong.trace(id);
      expect(t.output.toolCalls[0]!.arguments).not.toEqual(t.expectedTools[0]!.arguments);
    }
    // The servers' own answers: the file server finds no such file; the memory server refuses the entities'
    // type, so the search after it finds nothing (a fresh folder, and so a fresh memory file, for each model's run).
    const [badRead] = wrong.trace('read-note').output.toolCalls;
    expect(badRead!.error).toMatch(/^tool error: ENOENT: no such file or directory/);
    const [badCreate, search] = wrong.trace('remember').output.toolCalls;
    expect(badCreate!.error).toMatch(/^tool error: MCP error -32602: Input validation error: .*create_entities/);
    expect([search!.error, JSON.parse(search!.result!)]).toEqual([null, { entities: [], relations: [] }]);

    // One server of each kind per model run, each gone once the run is over.
    expect(starts.map((s) => s.server).sort()).toEqual([
      'server-filesystem',
      'server-filesystem',
      'server-memory',
      'server-memory',
    ]);
    expect(starts.filter((s) => alive(s.pid))).toEqual([]);
    expect(runningIn(dir)).toEqual([]);
  });

  it("view --export: each case's transcript holds its MCP calls and the servers' results, and no path of the project", async () => {
    expect((await simRuns()).r.exitCode).toBe(0);
    const r = await sh(`${VIEW!.replace('results/memory-fs', 'results/memory-fs/sim_oracle')} --export view.html`);
    expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
    const html = readFileSync(join(dir, 'view.html'), 'utf8');
    expect(html).not.toContain(dir);
    expect(html).not.toContain(root);

    const blocks = new Map(
      [...html.matchAll(/<script type="application\/json" id="([^"]+)">([\s\S]*?)<\/script>/g)].map(
        (m) => [m[1]!, JSON.parse(m[2]!) as unknown] as const,
      ),
    );
    const data = blocks.get('tg-data') as ViewData;
    expect(data.runs).toHaveLength(1);
    const detail = (id: string): CaseDetail => {
      const row = data.runs[0]!.rows.find((x) => x.id === id)!;
      expect(row.status, id).toBe('pass');
      return blocks.get(`d0-${row.detail}`) as CaseDetail;
    };
    const transcript = (d: CaseDetail) => {
      const s = d.sections.find((x): x is Extract<Section, { kind: 'conversation' }> => x.kind === 'conversation')!;
      return {
        calls: s.turns.flatMap((t) => t.calls.map((c) => [c.name, JSON.parse(c.args)])),
        results: s.turns.filter((t) => t.role === 'tool').map((t) => t.text),
      };
    };

    const read = transcript(detail('read-note'));
    expect(read.calls).toHaveLength(1);
    expect(read.calls[0]![0]).toBe('read_text_file');
    // The path the server was given, shown relative to the folder the viewer was opened on (results/memory-fs).
    expect(read.calls[0]![1].path).toMatch(/^\.\.\/\.\.\/tmp\/notes-\w+\/notes\.txt$/);
    expect(read.results).toEqual([NOTE]);

    const remember = transcript(detail('remember'));
    expect(remember.calls).toEqual([
      ['create_entities', { entities: [ADA] }],
      ['search_nodes', { query: 'Ada' }],
    ]);
    expect(remember.results.map((t) => JSON.parse(t!))).toEqual([[ADA], { entities: [ADA], relations: [] }]);
  });

  it.skipIf(!ENGINE)(
    `on a gguf: test model with the context docs/mcp.md advises, every case runs and is scored with the servers' tools in its prompt, and the run says it is a test model${ENGINE ? '' : ' — SKIPPED: node-llama-cpp 3.21.1 is not installed (npm run setup:engine)'}`,
    async () => {
      const made = await sh('npx toolgauge make-test-model test.gguf --template hermes --seed 1');
      expect(made.exitCode, made.stderr).toBe(0);
      const before = serverStarts(0).lines;
      // Both servers' tools go into every prompt (about 11,500 tokens), more than a test model's default context of
      // 2048 holds: docs/mcp.md gives the engine room with TOOLGAUGE_ENGINE_CTX.
      const r = await sh(
        'npx toolgauge eval memory-fs.eval.ts --model gguf:test.gguf --max-tokens 12 --out-dir results/gguf',
        { TOOLGAUGE_ENGINE_CTX: '16384' },
      );
      // Random weights answer nonsense: the cases fail (exit 0 without a gate), but each ran and was scored.
      expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
      const { summary, instances, trace } = runOf(join(dir, 'results', 'gguf'));
      expect([...instances.keys()].sort()).toEqual(['read-note', 'remember']);
      for (const i of instances.values()) {
        expect(i.error, i.id).toBeNull();
        // The engine counted the servers' tools in the prompt (the case's own messages are a few hundred tokens).
        const usage = (trace(i.id) as unknown as { output: { usage: { prompt_tokens: number } } }).output.usage;
        expect(usage.prompt_tokens, i.id).toBeGreaterThan(5000);
        expect(
          Object.values(i.scores).some((v) => typeof v === 'number'),
          i.id,
        ).toBe(true);
      }
      expect(summary.counts).toMatchObject({ runs: 2, errors: 0 });
      // A test model's run says so, on the console and in the report.
      expect(summary.header.engine).toMatchObject({ test_model: true, file: 'test.gguf' });
      expect(summary.notice).toMatch(/^TEST MODEL RUN/);
      expect(readFileSync(join(dir, 'results', 'gguf', 'report.md'), 'utf8')).toContain('TEST MODEL RUN');
      expect(r.stdout).toContain('[TEST MODEL — random weights, not a model result]');

      const { starts } = serverStarts(before);
      expect(starts.map((s) => s.server).sort()).toEqual(['server-filesystem', 'server-memory']);
      expect(starts.filter((s) => alive(s.pid))).toEqual([]);
      expect(runningIn(dir)).toEqual([]); // the engine's child too
    },
  );
});
