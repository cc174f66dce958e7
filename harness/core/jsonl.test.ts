import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendJsonl, writeFileAtomic } from './jsonl.ts';

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
  it('appendJsonl refuses a link in the file\'s place; the linked file is untouched', () => {
    const out = tmp();
    const victim = join(tmp(), 'victim.txt');
    writeFileSync(victim, 'keep\n');
    symlinkSync(victim, join(out, 'instances.jsonl'));
    expect(() => appendJsonl(join(out, 'instances.jsonl'), { id: 1 }, out)).toThrow(/instances\.jsonl is a symbolic link/);
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

  it('writeFileAtomic writes through no link: neither one planted at a predictable temporary name nor one in the file\'s place', () => {
    const out = tmp();
    const victim = join(tmp(), 'victim.txt');
    writeFileSync(victim, 'keep');
    const path = join(out, 'summary.json');
    symlinkSync(victim, `${path}.${process.pid}.tmp`);
    symlinkSync(victim, path);
    writeFileAtomic(path, '{"ok":true}', out);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('{"ok":true}');
  });
});
