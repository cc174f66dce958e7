/**
 * Parser throughput and the linear bound, measured.
 *
 *   npx tsx bench/parse.ts   (npm run bench runs it too) [--seconds N]
 *
 * 1. outputs/s per tier (format auto) over a mixed corpus: every fixture under fixtures/parse, each family's
 *    rendering of a few call lists, long prose answers without calls, and a call after a page of reasoning;
 * 2. batch mode (`toolgauge parse --jsonl`): lines/s through the same per-line code the command runs
 *    (JSON.parse of the line, parse, JSON.stringify of the record), in process;
 * 3. hostile inputs of growing size (the reported quadratic case among them): time and reader work per
 *    character, which stay flat when parsing is linear.
 */
import { batchLine } from '../harness/cli/commands/parse.ts';
import { loadFixtures } from '../harness/parse/fixtures.ts';
import { FAMILIES, parseToolCalls, parseWork, renderToolCalls, type ParsedCall } from '../harness/parse/index.ts';

function corpus(): string[] {
  const out = loadFixtures().map((f) => f.text);
  const lists: ParsedCall[][] = [
    [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'c' } }],
    [
      { name: 'search_flights', arguments: { from: 'ZRH', to: '東京', date: '2025-03-01', passengers: 2, flexible: true } },
      { name: 'book_hotel', arguments: { city: 'Tokyo', nights: 3, prefs: { smoking: false, floors: [3, 4, 5] }, note: 'quiet "room", {late} check-in\nplease' } },
    ],
    [{ name: 'noop', arguments: {} }],
  ];
  for (const f of FAMILIES) for (const l of lists) out.push(renderToolCalls(l, f));
  const prose = 'The capital of France is Paris. It has been the capital since the 10th century, with a short interruption. ';
  out.push(prose.repeat(20), `${prose.repeat(10)}\nThe answer is 42.`);
  out.push(`<think>${prose.repeat(15)}</think>\nNow I will call the tool:\n${renderToolCalls(lists[1]!, 'hermes')}`);
  out.push(`${prose.repeat(15)}\n\`\`\`json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n\`\`\``);
  return out;
}

function perSecond(seconds: number, step: () => number): number {
  step(); // warm-up
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) n += step();
  return n / ((performance.now() - start) / 1000);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) || 2 : 2;

const texts = corpus();
const chars = texts.reduce((n, t) => n + t.length, 0);
const w = (s: string) => process.stdout.write(s);
w(`corpus: ${texts.length} outputs, mean ${Math.round(chars / texts.length)} chars (${FAMILIES.length} families)\n\n`);
w('| measure | result |\n|---|---|\n');
for (const tier of ['strict', 'lenient'] as const) {
  const rate = perSecond(seconds, () => {
    for (const t of texts) parseToolCalls(t, { tier });
    return texts.length;
  });
  w(`| ${tier} tier, format auto | ${fmt(rate)} outputs/s |\n`);
}
const lines = texts.map((t, i) => JSON.stringify({ id: i, output: t }));
for (const tier of ['strict', 'lenient'] as const) {
  const rate = perSecond(seconds, () => {
    for (let i = 0; i < lines.length; i++) batchLine(lines[i]!, i + 1, { tier, format: 'auto', source: 'bench' });
    return lines.length;
  });
  w(`| batch lines (\`--jsonl\`, ${tier}), in process | ${fmt(rate)} lines/s |\n`);
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
    w(`| ${label} | ${(t.length / 1024).toFixed(0)} KiB | ${(ms / 1000).toFixed(2)} s | ${(work / t.length).toFixed(1)} | ${note} |\n`);
  }
}
