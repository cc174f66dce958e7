import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDataText, readJsonOrYaml } from './data-file.ts';
import { DataError } from './errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'tg-data-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readDataText', () => {
  it('is the text of a file that can be read', () => {
    writeFileSync(join(dir, 'a.txt'), 'héllo\n');
    expect(readDataText(join(dir, 'a.txt'), 'the file')).toBe('héllo\n');
  });
  it('names the file, what it is and the error code when it cannot be read', () => {
    const missing = join(dir, 'missing.jsonl');
    expect(() => readDataText(missing, 'the cases file')).toThrow(
      new DataError(missing, undefined, undefined, 'cannot read the cases file (ENOENT)'),
    );
    expect(() => readDataText(dir, 'the chat template')).toThrow(`${dir}: cannot read the chat template (EISDIR)`);
  });
});

describe('readJsonOrYaml', () => {
  it('reads a .json file as JSON and any other as YAML', () => {
    expect(readJsonOrYaml('{"a": [1, 2]}', 'x.json')).toEqual({ a: [1, 2] });
    expect(readJsonOrYaml('a: [1, 2]\n', 'x.yaml')).toEqual({ a: [1, 2] });
    expect(readJsonOrYaml('{"a": 1}', 'x.yml')).toEqual({ a: 1 });
    expect(() => readJsonOrYaml('a: 1\n', 'x.json')).toThrow(/^x\.json: not valid JSON: /);
  });
  it("says which of the two the text is not, in the parser's first line", () => {
    expect(() => readJsonOrYaml('a: [1\n', 'tools.yaml')).toThrow(/^tools\.yaml: not valid YAML: [^\n]+$/);
    expect(() => readJsonOrYaml('a: [1\n', 'tools.yaml')).toThrow(DataError);
  });
});
