import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter.ts';

/** The oracle: node:readline itself, as batch parsing used it. */
async function readlineLines(chunks: Array<string | Buffer>): Promise<string[]> {
  const out: string[] = [];
  const rl = createInterface({ input: Readable.from(chunks), crlfDelay: Infinity });
  for await (const line of rl) out.push(line);
  return out;
}

function splitterLines(chunks: Array<string | Buffer>): string[] {
  const s = new LineSplitter();
  return [...chunks.flatMap((c) => s.push(c)), ...s.end()];
}

/** Cut a buffer at the given offsets (sorted, deduplicated, inside it). */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [...new Set(at.map((a) => a % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let p = 0;
  for (const q of points) {
    out.push(bytes.subarray(p, q));
    p = q;
  }
  out.push(bytes.subarray(p));
  return out.filter((b) => b.length > 0);
}

describe('LineSplitter', () => {
  it('gives the lines readline gives, for any text cut anywhere (CR, LF, CRLF across chunks, multi-byte splits)', async () => {
    const piece = fc.constantFrom('a', 'é', '東', '😀', '\n', '\r', '\r\n', ' ', '{"id":1}', '\\r', '\u2028');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(200), { maxLength: 8 }), async (ps, at) => {
        const chunks = cut(Buffer.from(ps.join(''), 'utf8'), at);
        expect(splitterLines(chunks)).toEqual(await readlineLines(chunks));
      }),
      { numRuns: 300 },
    );
  });

  it('drops an incomplete UTF-8 sequence at the very end, as readline does; string chunks are text', async () => {
    const cases: Array<Array<string | Buffer>> = [
      [Buffer.from('a\nb'), Buffer.from([0xe6, 0x9d])],
      [Buffer.from('a\r'), Buffer.from('\nb\r')],
      ['x\r', '\ny', '\n\n'],
      [Buffer.from([0xff, 0x0a, 0xc3])],
    ];
    for (const chunks of cases) expect(splitterLines(chunks)).toEqual(await readlineLines(chunks));
  });
});
