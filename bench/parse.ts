/**
 * Parser throughput and the linear bound, measured.
 *
 *   npx tsx bench/parse.ts [--seconds N] [--dist] [--record NAME]   (npm run bench runs it too)
 *
 * 1. outputs per CPU-second per tier (format auto) over a mixed corpus: every fixture under fixtures/parse, each
 *    family's rendering of a few call lists, long prose answers without calls, and a call after a page of reasoning.
 *    CPU time, not wall time: on a shared machine the wall clock measures the neighbours;
 * 2. batch mode (`toolgauge parse --jsonl`): lines per CPU-second through the same per-line code the command runs
 *    (JSON.parse of the line, parse, JSON.stringify of the record), in process;
 * 3. the frameworks' own parser-test strings (vLLM's and llama.cpp's, fixtures/parse/<family>/frameworks.json: short
 *    outputs, many without a call, so the lenient tier's rescue runs often): batch lines per CPU-second in process,
 *    and `toolgauge parse --jsonl` as a user runs it — the whole command (start-up and warm-up included) over a file
 *    of 50,000 lines (the strings repeated), CPU of the process from the shell's `time`, best of three; and the same
 *    command with V8's default inlining (the launcher turns it off for `parse`), the two alternating;
 * 4. hostile inputs of growing size (the reported quadratic case among them): time and reader work per
 *    character, which stay flat when parsing is linear.
 *
 * `--dist` measures the built package (`npm run build` first): the JavaScript a user's install runs, without the
 * TypeScript loader's per-closure naming helper that the sources pay under tsx. The figures are written to
 * bench/records/parsers.json (parsers-dist.json), which the figures of docs/benchmarks.md are checked against.
 */
import { loadFixtures } from '../harness/parse/fixtures.ts';
import type * as ParseApi from '../harness/parse/index.ts';
import type * as ParseCommand from '../harness/cli/commands/parse.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../harness/core/paths.ts';
import { parseCorpus } from '../harness/parse/corpus.ts';
import { formatFigure, writeRecord } from './record.ts';

const dist = process.argv.includes('--dist');
const from = (rel: string) => (dist ? fromRoot('dist', `${rel}.js`) : fromRoot(`${rel}.ts`));
const { FAMILIES, parseToolCalls, parseWork, renderToolCalls } = (await import(
  from('harness/parse/index')
)) as typeof ParseApi;
const { batchLine } = (await import(from('harness/cli/commands/parse'))) as typeof ParseCommand;
type ParsedCall = ParseApi.ParsedCall;

function corpus(): string[] {
  const out = loadFixtures().map((f) => f.text);
  const lists: ParsedCall[][] = [
    [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'c' } }],
    [
      {
        name: 'search_flights',
        arguments: { from: 'ZRH', to: '東京', date: '2025-03-01', passengers: 2, flexible: true },
      },
      {
        name: 'book_hotel',
        arguments: {
          city: 'Tokyo',
          nights: 3,
          prefs: { smoking: false, floors: [3, 4, 5] },
          note: 'quiet "room", {late} check-in\nplease',
        },
      },
    ],
    [{ name: 'noop', arguments: {} }],
  ];
  for (const f of FAMILIES) for (const l of lists) out.push(renderToolCalls(l, f));
  const prose =
    'The capital of France is Paris. It has been the capital since the 10th century, with a short interruption. ';
  out.push(prose.repeat(20), `${prose.repeat(10)}\nThe answer is 42.`);
  out.push(`<think>${prose.repeat(15)}</think>\nNow I will call the tool:\n${renderToolCalls(lists[1]!, 'hermes')}`);
  out.push(`${prose.repeat(15)}\n\`\`\`json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n\`\`\``);
  return out;
}

/**
 * Items per CPU-second of this process (user + system), stepping for `seconds` of CPU after a warm-up of at least one
 * CPU-second. The optimizing compiler runs on other threads of this process and its work counts in the process's CPU
 * time: after a warm-up of a few steps only, the first measure (strict) still paid for compiling the parsers and came
 * out below the batch mode, which does strictly more per item.
 */
function perCpuSecond(seconds: number, step: () => number): number {
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const warm = cpu();
  for (let i = 0; i < 20 || cpu() - warm < 1; i++) step();
  let n = 0;
  const start = cpu();
  while (cpu() - start < seconds) n += step();
  return n / (cpu() - start);
}

const fmt = formatFigure;
const figures: Record<string, number> = {};
const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) || 2 : 2;

const texts = corpus();
const chars = texts.reduce((n, t) => n + t.length, 0);
const w = (s: string) => process.stdout.write(s);
w(
  `corpus: ${texts.length} outputs, mean ${Math.round(chars / texts.length)} chars (${FAMILIES.length} families); code: ${dist ? 'dist/ (built)' : 'sources under tsx'}\n\n`,
);
w('| measure | result |\n|---|---|\n');
for (const tier of ['strict', 'lenient'] as const) {
  const rate = perCpuSecond(seconds, () => {
    for (const t of texts) parseToolCalls(t, { tier });
    return texts.length;
  });
  figures[`${tier}_outputs_per_cpu_s`] = Math.round(rate);
  w(`| ${tier} tier, format auto | ${fmt(rate)} outputs per CPU-s |\n`);
}
const lines = texts.map((t, i) => JSON.stringify({ id: i, output: t }));
for (const tier of ['strict', 'lenient'] as const) {
  const rate = perCpuSecond(seconds, () => {
    for (let i = 0; i < lines.length; i++) batchLine(lines[i]!, i + 1, { tier, format: 'auto', source: 'bench' });
    return lines.length;
  });
  figures[`batch_${tier}_lines_per_cpu_s`] = Math.round(rate);
  w(`| batch lines (\`--jsonl\`, ${tier}), in process | ${fmt(rate)} lines per CPU-s |\n`);
}

const fw = parseCorpus().filter((c) => c.source === 'frameworks');
const fwLines = fw.map((c, i) => JSON.stringify({ id: i, output: c.text }));
for (const tier of ['strict', 'lenient'] as const) {
  const rate = perCpuSecond(seconds, () => {
    for (let i = 0; i < fwLines.length; i++) batchLine(fwLines[i]!, i + 1, { tier, format: 'auto', source: 'bench' });
    return fwLines.length;
  });
  figures[`frameworks_batch_${tier}_lines_per_cpu_s`] = Math.round(rate);
  w(`| frameworks' strings (${fw.length}): batch lines (${tier}), in process | ${fmt(rate)} lines per CPU-s |\n`);
}
if (!dist) {
  const COMMAND_LINES = 50_000;
  const dir = mkdtempSync(join(tmpdir(), 'toolgauge-parse-bench-'));
  const file = join(dir, 'frameworks.jsonl');
  const body: string[] = [];
  for (let i = 0; i < COMMAND_LINES; i++) body.push(JSON.stringify({ id: i, output: fw[i % fw.length]!.text }));
  writeFileSync(file, `${body.join('\n')}\n`);
  // The command as shipped, and the same command with V8's default inlining (bin/toolgauge.mjs turns inlining off
  // for `parse`): the launcher's bundle loaded without the launcher. Rounds alternate the two, best of three each.
  const launcher = `const { loadCli } = await import(${JSON.stringify(fromRoot('bin', 'cli-bundle.mjs'))}); process.exitCode = await (await loadCli())(process.argv.slice(1));`;
  const variants: Array<[string, string[]]> = [
    ['', [fromRoot('bin', 'toolgauge.mjs')]],
    ['_default_inlining', [process.execPath, '--max-semi-space-size=2', '--input-type=module', '-e', launcher]],
  ];
  try {
    for (const tier of ['strict', 'lenient'] as const) {
      const best = variants.map(() => Infinity);
      for (let round = 0; round < 3; round++) {
        for (const [v, [, argv]] of variants.entries()) {
          const [cmd, ...pre] = argv;
          // bash's `time` reports the user and system CPU of the command's process
          const t = execFileSync(
            'bash',
            [
              '-c',
              'TIMEFORMAT="%U %S"; { time "$@" >/dev/null; } 2>&1',
              'bash',
              cmd!,
              ...pre,
              'parse',
              '--jsonl',
              file,
              '--tier',
              tier,
            ],
            { encoding: 'utf8' },
          );
          const [u, sy] = t.trim().split(/\s+/).slice(-2).map(Number);
          best[v] = Math.min(best[v]!, u! + sy!);
        }
      }
      for (const [v, [suffix]] of variants.entries()) {
        figures[`frameworks_command_${tier}${suffix}_lines_per_cpu_s`] = Math.round(COMMAND_LINES / best[v]!);
        w(
          `| \`toolgauge parse --jsonl\` (${tier}${suffix ? ', V8 default inlining' : ''}), ${COMMAND_LINES.toLocaleString('en-US')} lines of the frameworks' strings, whole command | ${fmt(COMMAND_LINES / best[v]!)} lines per CPU-s (${best[v]!.toFixed(2)} CPU-s) |\n`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

w('\nhostile inputs (lenient tier, format auto): time and reader work per character stay flat as the input grows\n\n');
w('| input | size | time | work / char | note |\n|---|---|---|---|---|\n');
const hostile: Array<[string, string]> = [
  ['`{"name": "a", "arguments": {` repeated (the reported case)', '{"name": "a", "arguments": {'],
  ['`{{"a": {{` repeated (doubled braces)', '{{"a": {{'],
  ['`[f(a=` repeated (Python call lists)', '[f(a='],
  ['`<tool_call>{` repeated', '<tool_call>{'],
];
for (const [label, unit] of hostile) {
  for (const size of [256 * 1024, 1024 * 1024]) {
    const t = unit.repeat(Math.ceil(size / unit.length));
    const start = performance.now();
    const { result, work } = parseWork(t, { tier: 'lenient' });
    const ms = performance.now() - start;
    const note = result.notes.find((n) => n.startsWith('input too complex')) ? 'stopped at the work budget' : '';
    w(
      `| ${label} | ${(t.length / 1024).toFixed(0)} KiB | ${(ms / 1000).toFixed(2)} s | ${(work / t.length).toFixed(1)} | ${note} |\n`,
    );
  }
}

const recordArg = process.argv.indexOf('--record');
const rec = writeRecord(recordArg > 0 ? process.argv[recordArg + 1]! : dist ? 'parsers-dist' : 'parsers', figures);
w(
  `\nrecord: bench/records/${rec.bench}.json (${rec.date}, ${rec.commit.slice(0, 10)}${rec.dirty ? ', uncommitted changes' : ''}, load ${rec.machine.load1})\n`,
);
