/**
 * `toolgauge parse --jsonl` on the whole parse corpus (harness/parse/corpus.ts), in both tiers with format auto,
 * gives exactly the bytes recorded in fixtures/parse-batch/golden-<tier>.jsonl. The golden files were written by
 * the command before its batch path and the parsers were tuned for speed: a change of any parse result, or of the
 * line format, shows here as the first differing line. TOOLGAUGE_WRITE_GOLDEN=1 rewrites them (after a deliberate
 * change of results, reviewed in the diff).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../core/paths.ts';
import { parseCorpus } from '../../parse/corpus.ts';
import { run } from './parse.ts';

const corpus = parseCorpus();
const input = `${corpus.map((c) => JSON.stringify({ id: c.id, output: c.text })).join('\n')}\n`;

async function batch(tier: 'strict' | 'lenient'): Promise<string> {
  let out = '';
  // odd-sized chunks: lines and multi-byte characters straddle them
  const bytes = Buffer.from(input, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 4093) chunks.push(bytes.subarray(i, i + 4093));
  const code = await run(['--jsonl', '-', '--tier', tier], {
    stdin: Readable.from(chunks),
    stdout: { write: (s: string) => (out += s) },
  });
  expect(code).toBe(0);
  return out;
}

describe('toolgauge parse --jsonl on the parse corpus', () => {
  for (const tier of ['strict', 'lenient'] as const) {
    it(`${tier}: byte-identical to the recorded output`, async () => {
      const file = fromRoot('fixtures', 'parse-batch', `golden-${tier}.jsonl`);
      const got = await batch(tier);
      if (process.env.TOOLGAUGE_WRITE_GOLDEN === '1') writeFileSync(file, got);
      const want = readFileSync(file, 'utf8');
      const g = got.split('\n');
      const w = want.split('\n');
      expect(g.length).toBe(w.length);
      expect(g.length).toBeGreaterThan(corpus.length); // every input line and the final newline
      for (let i = 0; i < w.length; i++)
        if (g[i] !== w[i]) expect(`line ${i + 1}: ${g[i]}`).toBe(`line ${i + 1}: ${w[i]}`);
    });
  }
});
