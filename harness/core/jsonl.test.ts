import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { streamLines } from './jsonl.ts';
import { runs } from './testkit.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('streamLines', () => {
  it('yields the lines of any text, whatever the chunk size, and hashes the whole file', () => {
    const file = join(dir, 'any.txt');
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'é', '東', '🙂', '\n', '\r', ' '), maxLength: 60 }), fc.integer({ min: 1, max: 9 }), (text, chunkBytes) => {
        writeFileSync(file, text);
        const got: string[] = [];
        const { sha256 } = streamLines(file, ({ text: t }) => void got.push(t), { chunkBytes, hash: true });
        const want = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
        if (text.endsWith('\n') || text === '') want.pop();
        expect(got).toEqual(want);
        expect(sha256).toBe(createHash('sha256').update(text).digest('hex'));
      }),
      { numRuns: runs(300) },
    );
  });

  it('stops when asked, still hashes everything, and reports an over-long line cut instead of holding it', () => {
    const file = join(dir, 'long.txt');
    const text = `a\n${'x'.repeat(50)}\nb\nc\n`;
    writeFileSync(file, text);
    const seen: Array<[number, string, boolean]> = [];
    const { sha256 } = streamLines(file, ({ text: t, lineNo, tooLong }) => (seen.push([lineNo, t, tooLong]), lineNo < 3), { maxLineChars: 10, chunkBytes: 4, hash: true });
    expect(seen).toEqual([[1, 'a', false], [2, 'x'.repeat(10), true], [3, 'b', false]]);
    expect(sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });
});
