import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { carryTrace, restoreTrace } from './shard-traces.ts';

const root = mkdtempSync(join(tmpdir(), 'tg-shard-traces-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dir(name: string): string {
  const d = join(root, name);
  mkdirSync(join(d, 'traces'), { recursive: true });
  return d;
}

describe('traces carried in a shard blob', () => {
  it('come back byte for byte in the merged folder, carried in much less than their size', () => {
    const shard = dir('shard');
    const merged = dir('merged');
    const text = JSON.stringify(
      { id: 'case-1', messages: Array.from({ length: 200 }, (_, i) => ({ role: 'tool', content: `result ${i} ✓` })) },
      null,
      1,
    );
    writeFileSync(join(shard, 'traces', 'case-1.json'), text);
    const carried = carryTrace(shard, 'traces/case-1.json')!;
    expect(JSON.stringify(carried).length).toBeLessThan(text.length / 3);
    restoreTrace(merged, JSON.parse(JSON.stringify(carried)));
    expect(readFileSync(join(merged, 'traces', 'case-1.json'), 'utf8')).toBe(text);
  });

  it('restores a plain trace from an older blob, and ignores what cannot be a trace', () => {
    const merged = dir('older');
    restoreTrace(merged, { path: 'traces/a.json', content: '{"a":1}' });
    expect(readFileSync(join(merged, 'traces', 'a.json'), 'utf8')).toBe('{"a":1}');
    restoreTrace(merged, { path: 'traces/b.json', gzip: 'not base64 gzip' });
    restoreTrace(merged, { path: '../escape.json', content: 'x' });
    restoreTrace(merged, { path: 'traces/../../escape2.json', gzip: gzipSync('x').toString('base64') });
    expect(existsSync(join(merged, 'traces', 'b.json'))).toBe(false);
    expect(existsSync(join(root, 'escape.json'))).toBe(false);
    expect(existsSync(join(root, 'escape2.json'))).toBe(false);
  });

  it('refuses a gzip that inflates beyond the limit (a blob is input)', () => {
    const merged = dir('bomb');
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024)).toString('base64');
    restoreTrace(merged, { path: 'traces/bomb.json', gzip: bomb });
    expect(existsSync(join(merged, 'traces', 'bomb.json'))).toBe(false);
  });
});
