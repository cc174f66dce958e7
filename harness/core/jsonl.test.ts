import { createHash } from 'node:crypto';
import {
  linkSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { appendJsonl, streamLines, writeFileAtomic, writeLinesAtomic } from './jsonl.ts';
import { clearSecrets, registerSecret } from './redact.ts';
import { refuseLink } from './nofollow.ts';
import { runs } from './testkit.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'tg-jsonl-'));
  dirs.push(d);
  return d;
}

describe('writing without following links', () => {
  it("appendJsonl refuses a link in the file's place; the linked file is untouched", () => {
    const out = tmp();
    const victim = join(tmp(), 'victim.txt');
    writeFileSync(victim, 'keep\n');
    symlinkSync(victim, join(out, 'instances.jsonl'));
    expect(() => appendJsonl(join(out, 'instances.jsonl'), { id: 1 }, out)).toThrow(
      /instances\.jsonl is a symbolic link/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('keep\n');
  });

  it("a hard link in the file's place is refused too (O_NOFOLLOW does not see it): the other name's file is untouched", () => {
    const out = tmp();
    const victim = join(tmp(), 'victim.txt');
    writeFileSync(victim, 'keep\n');
    linkSync(victim, join(out, 'instances.jsonl'));
    expect(() => refuseLink(join(out, 'instances.jsonl'))).toThrow(/instances\.jsonl has other hard links/);
    expect(() => appendJsonl(join(out, 'instances.jsonl'), { id: 1 }, out)).toThrow(
      /instances\.jsonl has other hard links/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('keep\n');
    // A whole-file write replaces the name (rename), so the other name keeps its content.
    writeFileAtomic(join(out, 'instances.jsonl'), 'new\n', out);
    expect(readFileSync(victim, 'utf8')).toBe('keep\n');
  });

  it('a link planted as a folder between the output directory and the file is refused, for appends and whole files', () => {
    const out = tmp();
    const victim = tmp();
    symlinkSync(victim, join(out, 'traces'));
    expect(() => writeFileAtomic(join(out, 'traces', '1.json'), '{}', out)).toThrow(/traces is a symbolic link/);
    expect(() => appendJsonl(join(out, 'traces', 'x.jsonl'), {}, out)).toThrow(/traces is a symbolic link/);
    expect(readdirSync(victim)).toEqual([]);
  });

  it("writeFileAtomic writes through no link: neither one planted at a predictable temporary name nor one in the file's place", () => {
    const out = tmp();
    const victim = join(tmp(), 'victim.txt');
    writeFileSync(victim, 'keep');
    const path = join(out, 'summary.json');
    symlinkSync(victim, `${path}.${process.pid}.tmp`);
    writeFileAtomic(path, '{"ok":true}', out);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(readFileSync(path, 'utf8')).toBe('{"ok":true}');
    // A link in the file's place is refused in one line, neither followed nor replaced.
    rmSync(path);
    symlinkSync(victim, path);
    expect(() => writeFileAtomic(path, '{"ok":true}', out)).toThrow(
      /summary\.json is a symbolic link: toolgauge does not replace it/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });
});

const dir = mkdtempSync(join(tmpdir(), 'tg-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('streamLines', () => {
  it('yields the lines of any text, whatever the chunk size, and hashes the whole file', () => {
    const file = join(dir, 'any.txt');
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'é', '東', '🙂', '\n', '\r', ' '), maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        (text, chunkBytes) => {
          writeFileSync(file, text);
          const got: string[] = [];
          const { sha256 } = streamLines(file, ({ text: t }) => void got.push(t), { chunkBytes, hash: true });
          const want = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
          if (text.endsWith('\n') || text === '') want.pop();
          expect(got).toEqual(want);
          expect(sha256).toBe(createHash('sha256').update(text).digest('hex'));
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('stops when asked, still hashes everything, and reports an over-long line cut instead of holding it', () => {
    const file = join(dir, 'long.txt');
    const text = `a\n${'x'.repeat(50)}\nb\nc\n`;
    writeFileSync(file, text);
    const seen: Array<[number, string, boolean]> = [];
    const { sha256 } = streamLines(
      file,
      ({ text: t, lineNo, tooLong }) => (seen.push([lineNo, t, tooLong]), lineNo < 3),
      { maxLineChars: 10, chunkBytes: 4, hash: true },
    );
    expect(seen).toEqual([
      [1, 'a', false],
      [2, 'x'.repeat(10), true],
      [3, 'b', false],
    ]);
    expect(sha256).toBe(createHash('sha256').update(text).digest('hex'));
  });
});

describe('writeLinesAtomic', () => {
  afterEach(() => clearSecrets());

  it('writes every line in order across write batches, redacted line by line, and leaves no temporary file', () => {
    const d = tmp();
    const path = join(d, 'instances.jsonl');
    writeFileSync(path, 'the previous journal\n');
    registerSecret('sk-line-secret-123');
    // About 3 MiB: more than one write batch.
    const lines = Array.from(
      { length: 30_000 },
      (_, i) => `${JSON.stringify({ i, pad: 'x'.repeat(90), s: i % 7 === 0 ? 'sk-line-secret-123' : '' })}\n`,
    );
    let produced = 0;
    writeLinesAtomic(
      path,
      (function* () {
        for (const l of lines) {
          produced++;
          yield l;
        }
      })(),
      d,
    );
    expect(produced).toBe(lines.length);
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(lines.join('').replaceAll('sk-line-secret-123', '[REDACTED]'));
    expect(readdirSync(d)).toEqual(['instances.jsonl']);
  });

  it('refuses to replace a link and keeps what it points to', () => {
    const d = tmp();
    writeFileSync(join(d, 'target'), 'kept\n');
    symlinkSync(join(d, 'target'), join(d, 'instances.jsonl'));
    expect(() => writeLinesAtomic(join(d, 'instances.jsonl'), ['a\n'], d)).toThrow(/symbolic link/);
    expect(readFileSync(join(d, 'target'), 'utf8')).toBe('kept\n');
  });
});
