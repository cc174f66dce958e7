/**
 * Parser throughput: outputs per second for the strict and lenient tiers (format auto) over a mixed corpus —
 * every fixture under fixtures/parse, each family's rendering of a few call lists, long prose answers
 * without calls, and long outputs with a call after a page of reasoning.
 *
 *   npx tsx harness/parse/bench.ts [--seconds N]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILIES, parseToolCalls, renderToolCalls, type ParsedCall } from './index.ts';

const ROOT = fileURLToPath(new URL('../../fixtures/parse/', import.meta.url));

function corpus(): string[] {
  const out: string[] = [];
  for (const dir of readdirSync(ROOT)) {
    for (const f of readdirSync(join(ROOT, dir))) if (f.endsWith('.txt')) out.push(readFileSync(join(ROOT, dir, f), 'utf8'));
  }
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
  out.push(`${prose.repeat(15)}\nNow I will call the tool:\n${renderToolCalls(lists[1]!, 'hermes')}`);
  out.push(`${prose.repeat(15)}\n\`\`\`json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n\`\`\``);
  return out;
}

function measure(texts: string[], tier: 'strict' | 'lenient', seconds: number): { perSecond: number; runs: number } {
  for (const t of texts) parseToolCalls(t, { tier }); // warm-up
  let runs = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) {
    for (const t of texts) parseToolCalls(t, { tier });
    runs += texts.length;
  }
  return { perSecond: runs / ((performance.now() - start) / 1000), runs };
}

const secondsArg = process.argv.indexOf('--seconds');
const seconds = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) || 2 : 2;
const texts = corpus();
const chars = texts.reduce((n, t) => n + t.length, 0);
process.stdout.write(`corpus: ${texts.length} outputs, mean ${Math.round(chars / texts.length)} chars\n`);
for (const tier of ['strict', 'lenient'] as const) {
  const { perSecond, runs } = measure(texts, tier, seconds);
  process.stdout.write(`${tier.padEnd(8)} ${Math.round(perSecond).toLocaleString('en-US')} outputs/s (${runs} parses in ${seconds}s)\n`);
}
