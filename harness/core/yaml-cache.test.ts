import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';
import { BUILTIN_TOOLS_DIR, libraryFiles } from '../maze/tools/library.ts';
import { readYamlCached } from './yaml-cache.ts';
import { readYaml } from './yaml.ts';

/** readYaml, counting its calls: a call is a cache miss. */
function countingParse() {
  const calls: string[] = [];
  const parse = (text: string, o: { uniqueKeys?: boolean }) => {
    calls.push(text);
    return readYaml(text, o);
  };
  return { calls, parse };
}

describe('readYamlCached: parsed YAML kept between processes', () => {
  it('gives the built-in Maze library files the values readYaml gives them, from the cache on the second read', () => {
    const dir = join(tempDir('yaml-cache'), 'c');
    const { calls, parse } = countingParse();
    const files = libraryFiles(BUILTIN_TOOLS_DIR);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      // the first read is a miss: readYaml's own values, the oracle for the cached read
      const first = readYamlCached(text, { dir, parse });
      expect(calls.at(-1), f).toBe(text);
      expect(readYamlCached(text, { dir, parse }), f).toEqual(first);
    }
    expect(calls).toHaveLength(files.length);
    expect(readdirSync(dir)).toHaveLength(files.length);
  });

  it('keeps any JSON-shaped value exactly (property: YAML written from a JSON value reads back the same, cached)', () => {
    const dir = join(tempDir('yaml-cache-prop'), 'c');
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = stringify(value);
        const expected = readYaml(text);
        // toEqual tells -0 from 0: a kept -0 would come back as 0 and fail here
        expect(readYamlCached(text, { dir })).toEqual(expected);
        expect(readYamlCached(text, { dir })).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('does not keep values JSON cannot give back (Infinity, NaN, -0): each read parses', () => {
    const dir = join(tempDir('yaml-cache-inf'), 'c');
    const { calls, parse } = countingParse();
    for (const text of ['a: .inf\n', 'a: .nan\n', 'a: -0.0\n']) {
      const first = readYamlCached(text, { dir, parse });
      const again = readYamlCached(text, { dir, parse });
      expect(again, text).toEqual(readYaml(text));
      expect(Object.is((again as { a: number }).a, (first as { a: number }).a), text).toBe(true);
    }
    expect(calls).toHaveLength(6);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an entry cut short is parsed again and rewritten; a parse error is thrown and never kept', () => {
    const dir = join(tempDir('yaml-cache-cut'), 'c');
    const { calls, parse } = countingParse();
    const text = 'a: [1, 2]\nb: {c: x}\n';
    readYamlCached(text, { dir, parse });
    const [entry] = readdirSync(dir);
    writeFileSync(join(dir, entry!), '{"a": [1,');
    expect(readYamlCached(text, { dir, parse })).toEqual({ a: [1, 2], b: { c: 'x' } });
    expect(calls).toHaveLength(2);
    expect(readYamlCached(text, { dir, parse })).toEqual({ a: [1, 2], b: { c: 'x' } });
    expect(calls).toHaveLength(2);
    // uniqueKeys is part of the entry's name: the same text read without it is another entry
    expect(() => readYamlCached('k: 1\nk: 2\n', { dir, parse })).toThrow(/unique|duplicate|repeat/i);
    expect(readYamlCached('k: 1\nk: 2\n', { dir, parse, uniqueKeys: false })).toEqual({ k: 2 });
    expect(() => readYamlCached('k: 1\nk: 2\n', { dir, parse })).toThrow(/unique|duplicate|repeat/i);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('a folder others may write, or a link, is not used: the text is parsed', () => {
    const root = tempDir('yaml-cache-trust');
    const open = join(root, 'open');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(root, 'link');
    symlinkSync(real, link);
    for (const dir of [open, link]) {
      const { calls, parse } = countingParse();
      readYamlCached('a: 1\n', { dir, parse });
      readYamlCached('a: 1\n', { dir, parse });
      expect(calls, dir).toHaveLength(2);
    }
    expect(readdirSync(open)).toEqual([]);
    expect(readdirSync(real)).toEqual([]);
  });
});
