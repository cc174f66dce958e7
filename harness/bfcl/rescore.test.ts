// `bfcl rescore` on BFCL result folders written in each format (fc, hermes, pythonic), with the simulator's
// oracle and fault behaviours mixed in: every line's verdict must equal what BFCL's own checker says about it.
// Plus the CLI on the self-written fixtures: the files it writes and their fields.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ALL_CATEGORIES, isMultiTurn, languageOf, type BfclCategory } from './categories.ts';
import { loadCategory, type BfclCase } from './data.ts';
import { PythonBfclExecutor } from './executor.ts';
import { pyJsonDumps } from '../core/pyliteral/pyjson.ts';
import { rescoreResultDir } from './rescore.ts';
import { simulatedResult, type Behaviour, type ResultStyle } from './responder.ts';
import { run as runReport } from '../cli/commands/report.ts';
import { UsageError } from '../core/errors.ts';
import { acquireDirLock, LOCK_FILE, releaseDirLock } from '../kit/lock.ts';
import { BfclOracle, FIXTURE_DATA, hasReference, hasSharedData, SHARED_CLASSES, SHARED_DATA } from './testkit.ts';
import { run as runBfclCommand } from './command.ts';
import { SUITE_COMMAND_RUNNER } from '../cli/suite-command.ts';

const runBfcl = (argv: string[]) => runBfclCommand(argv, SUITE_COMMAND_RUNNER);

const HEAVY = process.env.TOOLGAUGE_BFCL_HEAVY === '1';
const TOY = fileURLToPath(new URL('../../fixtures/bfcl/classes', import.meta.url));
const tmp: string[] = [];
afterAll(() => tmp.forEach((d) => rmSync(d, { recursive: true, force: true })));

const BEHAVIOURS: Behaviour[] = ['oracle', 'decision_failure', 'format_failure', 'parser_gap'];

/** A BFCL result tree result/<model>/<group>/BFCL_v4_<category>_result.json. */
function writeResults(
  root: string,
  style: ResultStyle,
  byCategory: Array<[BfclCategory, BfclCase[]]>,
  pick = (_c: BfclCase, k: number) => BEHAVIOURS[k % BEHAVIOURS.length]!,
): Map<string, string> {
  const written = new Map<string, string>();
  for (const [category, cases] of byCategory) {
    const group = isMultiTurn(category) ? 'multi_turn' : category.includes('live') ? 'live' : 'non_live';
    const dir = join(root, 'my-model', group);
    mkdirSync(dir, { recursive: true });
    const lines = cases.map((c, k) => {
      const result = pyJsonDumps(simulatedResult(c, style, pick(c, k), { underscores: style === 'fc' }));
      written.set(c.id, result);
      return `{"id": ${JSON.stringify(c.id)}, "result": ${result}, "latency": 1.0}`;
    });
    writeFileSync(join(dir, `BFCL_v4_${category}_result.json`), lines.join('\n') + '\n');
  }
  return written;
}

const oracleStart = hasSharedData() && hasReference() ? await BfclOracle.start() : { skip: 'no ../shared/data/bfcl' };
const oracle = 'skip' in oracleStart ? undefined : oracleStart;
const exec = oracle ? new PythonBfclExecutor({ sourceDir: SHARED_CLASSES }) : undefined;
afterAll(async () => {
  await exec?.dispose();
  await oracle?.close();
});

describe.skipIf(!oracle)(
  `rescore reproduces BFCL's verdicts on result folders${oracle ? '' : ' — SKIPPED: needs ../shared/data/bfcl'}`,
  () => {
    const perCategory = HEAVY ? 60 : 2;
    // Default: one category of each kind and language; TOOLGAUGE_BFCL_HEAVY=1: all of them.
    const DEFAULT_CATEGORIES: readonly BfclCategory[] = [
      'simple_python',
      'simple_java',
      'parallel_multiple',
      'irrelevance',
      'live_relevance',
      'multi_turn_miss_func',
    ];
    const loaded = new Map<BfclCategory, BfclCase[]>();
    const casesOf = (c: BfclCategory) => loaded.get(c) ?? (loaded.set(c, loadCategory(SHARED_DATA, c)), loaded.get(c)!);
    for (const style of ['fc', 'hermes', 'pythonic'] as const) {
      it(`${style}: ${perCategory} results per category, oracle and fault outputs`, {
        timeout: HEAVY ? 900_000 : 60_000,
      }, async () => {
        const categories = (HEAVY ? ALL_CATEGORIES : DEFAULT_CATEGORIES).filter(
          (c) => style !== 'pythonic' || languageOf(c) === 'python',
        );
        const byCategory = categories.map((c): [BfclCategory, BfclCase[]] => [
          c,
          casesOf(c).slice(0, isMultiTurn(c) ? Math.ceil(perCategory / 2) : perCategory),
        ]);
        const root = mkdtempSync(join(tmpdir(), 'tg-bfcl-res-'));
        tmp.push(root);
        const written = writeResults(root, style, byCategory);
        const report = await rescoreResultDir(root, {
          format: style,
          dataDir: SHARED_DATA,
          executor: exec,
          beyond: false,
        });
        const cases = new Map(byCategory.flatMap(([, cs]) => cs.map((c) => [c.id, c] as [string, BfclCase])));
        expect(report.records.length).toBe(cases.size);
        expect(report.unknownIds).toEqual([]);
        let valid = 0;
        for (const r of report.records) {
          const c = cases.get(r.id)!;
          const result = written.get(r.id)!;
          const req = isMultiTurn(r.category)
            ? { op: 'multi_turn', category: r.category, entry: c.entry.raw, answer: c.answerRaw, result, fmt: style }
            : {
                op: 'single',
                category: r.category,
                entry: c.entry.raw,
                answer: c.answerRaw ?? '{}',
                result,
                fmt: style,
                language: languageOf(r.category),
                model: style === 'fc' ? 'dots' : 'oracle',
              };
          const ref = await oracle!.ask<{ valid: boolean; error_type: string }>(req);
          expect(`${r.valid}:${r.error_type}`, `${r.id} (${style})`).toBe(`${ref.valid}:${ref.error_type}`);
          if (r.valid) valid++;
        }
        // Each behaviour shows up: some pass, some fail.
        expect(valid).toBeGreaterThan(0);
        expect(valid).toBeLessThan(report.records.length);
      });
    }
  },
);

describe('toolgauge bfcl rescore (CLI, fixtures)', () => {
  it("writes results.jsonl with exactly {id, category, valid, error_type}, beyond.jsonl, and the kit's summary.json (header, gate) and report.md", async () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-bfcl-cli-'));
    tmp.push(root);
    const categories: BfclCategory[] = [
      'simple_python',
      'parallel',
      'irrelevance',
      'live_relevance',
      'simple_java',
      'multi_turn_base',
      'multi_turn_miss_param',
    ];
    writeResults(
      join(root, 'result'),
      'fc',
      categories.map((c) => [c, loadCategory(FIXTURE_DATA, c)]),
      (c, k) => (c.id === 'simple_python_2' ? 'parser_gap' : BEHAVIOURS[k % BEHAVIOURS.length]!),
    );
    const out = join(root, 'out');
    const printed: string[] = [];
    const spy = vi
      .spyOn(process.stdout, 'write')
      .mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
    let code: number;
    try {
      code = await runBfcl([
        'rescore',
        '--result-dir',
        join(root, 'result'),
        '--out-dir',
        out,
        '--data',
        FIXTURE_DATA,
        '--bfcl-source',
        TOY,
        '--gate',
        'overall_in_scope>=0.99',
      ]);
    } finally {
      spy.mockRestore();
    }
    // The gate is the kit's, as for a run: the behaviours below fail some cases, so it fails and the exit code is 1.
    expect(code).toBe(1);
    expect(printed.join('')).toMatch(/rescored 9 BFCL results \(fc\)/);
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(9);
    for (const l of lines) expect(Object.keys(l).sort()).toEqual(['category', 'error_type', 'id', 'valid']);
    // Results are scored in BFCL's order; behaviours cycle oracle, decision_failure, format_failure, parser_gap.
    expect(lines.find((l) => l.id === 'simple_python_0')).toEqual({
      id: 'simple_python_0',
      category: 'simple_python',
      valid: true,
      error_type: '',
    });
    expect(lines.find((l) => l.id === 'simple_python_1')!.valid).toBe(false);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      header: { toolgauge_version: string; model: string; endpoint: string };
      config: { format: string; mode: string };
      metrics: Record<string, unknown>;
      counts: { instances: number };
      gate: { passed: boolean; expression: string } | null;
    };
    expect(summary.counts.instances).toBe(9);
    expect(summary.header.toolgauge_version).toBeTruthy();
    expect(summary.header.endpoint).toMatch(/^none \(rescored /);
    expect(summary.config).toMatchObject({ format: 'fc', mode: 'fc' });
    expect(summary.gate).toMatchObject({ expression: 'overall_in_scope>=0.99', passed: false });
    expect(Object.keys(summary.metrics)).toEqual(
      expect.arrayContaining(['overall', 'overall_in_scope', 'group', 'accuracy']),
    );
    expect(Object.keys(summary.metrics.group as object)).toEqual(
      expect.arrayContaining(['non_live', 'live', 'irrelevance', 'multi_turn']),
    );
    // The journal the kit writes: `toolgauge report OUT` re-aggregates it to the same numbers and the same gate.
    expect(readFileSync(join(out, 'instances.jsonl'), 'utf8').trim().split('\n')).toHaveLength(9);
    const spy2 = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await runReport([out, '--gate', 'overall_in_scope>=0.99'])).toBe(1);
    } finally {
      spy2.mockRestore();
    }
    const again = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as typeof summary;
    expect(again.metrics).toEqual(summary.metrics);
    expect(again.header).toEqual(summary.header);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/BFCL verdict vs toolgauge verdict/);
    const beyond = readFileSync(join(out, 'beyond.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; toolgauge?: { cause?: string } });
    // simple_python_2 answers with Hermes text in the content instead of tool_calls: BFCL cannot decode it,
    // toolgauge's lenient tier reads the right call (a parser gap, not the model's fault).
    expect(beyond.some((b) => b.toolgauge?.cause === 'framework_parser_gap')).toBe(true);
  });

  it("writes OUT as a run would: refused while another run holds OUT's lock; never through a link; the lock given back", async () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-bfcl-lock-'));
    tmp.push(root);
    writeResults(join(root, 'result'), 'fc', [['simple_python', loadCategory(FIXTURE_DATA, 'simple_python')]]);
    const out = join(root, 'out');
    const rescore = async () => {
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
      try {
        return await runBfcl([
          'rescore',
          '--result-dir',
          join(root, 'result'),
          '--out-dir',
          out,
          '--data',
          FIXTURE_DATA,
        ]);
      } finally {
        spy.mockRestore();
      }
    };
    // A live run (this process, another run id) writes into OUT: nothing is written there.
    acquireDirLock(out, 'another-run');
    await expect(rescore()).rejects.toThrow(/toolgauge bfcl rescore: .* is in use by run another-run/);
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
    releaseDirLock(out, 'another-run');
    // Links planted in place of its files: refused in one line (a whole file replaces only a regular file), the
    // victims untouched.
    const victims = mkdtempSync(join(tmpdir(), 'tg-bfcl-victim-'));
    tmp.push(victims);
    for (const f of ['report.md', 'summary.json']) {
      writeFileSync(join(victims, f), 'victim\n');
      symlinkSync(join(victims, f), join(out, f));
    }
    await expect(rescore()).rejects.toThrow(/summary\.json is a symbolic link: toolgauge does not replace it/);
    for (const f of ['report.md', 'summary.json']) expect(readFileSync(join(victims, f), 'utf8')).toBe('victim\n');
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    // Without them, the rescore writes its files.
    for (const f of readdirSync(out)) if (lstatSync(join(out, f)).isSymbolicLink()) rmSync(join(out, f));
    expect(await rescore()).toBe(0);
    expect(lstatSync(join(out, 'summary.json')).isFile()).toBe(true);
  });

  it('refuses a missing result folder, or one without result files, with a one-line usage error', async () => {
    await expect(runBfcl(['rescore', '--result-dir', '/nonexistent', '--out-dir', '/tmp/x'])).rejects.toThrow(
      UsageError,
    );
    const empty = mkdtempSync(join(tmpdir(), 'tg-bfcl-empty-'));
    tmp.push(empty);
    await expect(runBfcl(['rescore', '--result-dir', empty, '--out-dir', join(empty, 'out')])).rejects.toThrow(
      /no BFCL_v4_<category>_result\.json/,
    );
    await expect(runBfcl(['rescore', '--result-dir', empty])).rejects.toThrow(/--out-dir OUT is required/);
    await expect(runBfcl(['rescore', '--result-dir', empty, '--out-dir', 'x', '--format', 'xml'])).rejects.toThrow(
      /--format must be one of auto\|fc\|hermes\|pythonic/,
    );
  });
});
