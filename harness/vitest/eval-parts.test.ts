import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentEvalPart, PART_FILES, partsFolder, writePartFiles } from './eval-parts.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

describe('the part files of an eval file (toolgauge eval --parts)', () => {
  it('are N files under node_modules/.toolgauge, one folder per eval file, each an eval file Vitest runs', () => {
    const root = tempDir('parts');
    const files = writePartFiles(root, join(root, 'evals', 'arith.eval.ts'), 3);
    expect(files.map((f) => f.slice(dirname(f).length + 1))).toEqual([
      'arith.part-1-of-3.eval.mjs',
      'arith.part-2-of-3.eval.mjs',
      'arith.part-3-of-3.eval.mjs',
    ]);
    for (const f of files) {
      expect(dirname(f)).toBe(partsFolder(root, join(root, 'evals', 'arith.eval.ts')));
      expect(PART_FILES.test(f)).toBe(true);
    }
    // Another eval file of the same name elsewhere gets a folder of its own.
    expect(partsFolder(root, join(root, 'other', 'arith.eval.ts'))).not.toBe(dirname(files[0]!));
    expect(readFileSync(files[1]!, 'utf8')).toContain(`${join(root, 'evals', 'arith.eval.ts')}?toolgauge-part=2`);
  });

  it('are written only when their text changes (the same paths and text on every run)', () => {
    const root = tempDir('parts');
    const file = join(root, 'a.eval.ts');
    const [first] = writePartFiles(root, file, 2);
    const old = new Date(2000, 0, 1);
    utimesSync(first!, old, old);
    expect(writePartFiles(root, file, 2)[0]).toBe(first);
    expect(statSync(first!).mtimeMs).toBe(old.getTime());
    writeFileSync(first!, 'stale');
    writePartFiles(root, file, 2);
    expect(readFileSync(first!, 'utf8')).toContain('part: 1, parts: 2');
  });

  it('set the part only while the eval module is evaluated, each part a module of its own', async () => {
    const root = tempDir('parts');
    // A stand-in for an eval file: it records the part it is evaluated as (what describeEval reads).
    const evalFile = join(root, 'probe.eval.mjs');
    writeFileSync(evalFile, `(globalThis.__tgPartsSeen ??= []).push(globalThis[Symbol.for('toolgauge.evalPart')]);\n`);
    const seen: unknown[] = [];
    (globalThis as { __tgPartsSeen?: unknown[] }).__tgPartsSeen = seen;
    try {
      for (const f of writePartFiles(root, evalFile, 2)) await import(f);
      expect(seen).toEqual([
        { part: 1, parts: 2, file: evalFile },
        { part: 2, parts: 2, file: evalFile },
      ]);
      expect(currentEvalPart()).toBeUndefined();
    } finally {
      delete (globalThis as { __tgPartsSeen?: unknown[] }).__tgPartsSeen;
    }
  });

  it('a file loaded whole is no part; a malformed value is ignored', () => {
    const key = Symbol.for('toolgauge.evalPart');
    const g = globalThis as Record<symbol, unknown>;
    try {
      expect(currentEvalPart()).toBeUndefined();
      g[key] = { part: 2, parts: 4 };
      expect(currentEvalPart()).toEqual({ part: 2, parts: 4 });
      g[key] = { part: 1, parts: 1 };
      expect(currentEvalPart()).toBeUndefined();
      g[key] = { part: 2, parts: 4, file: '/evals/a.eval.ts' };
      expect(currentEvalPart()).toEqual({ part: 2, parts: 4, file: '/evals/a.eval.ts' });
      g[key] = { part: 2, parts: 4, file: 7 };
      expect(currentEvalPart()).toEqual({ part: 2, parts: 4 });
      g[key] = { part: '2', parts: 4 };
      expect(currentEvalPart()).toBeUndefined();
    } finally {
      delete g[key];
    }
  });
});
