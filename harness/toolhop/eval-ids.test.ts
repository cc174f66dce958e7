import { readFileSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/paths.ts';
import { drawSplits, describeIds, toolhopEvalIds } from '../optimize/splits.ts';
import { readEvalIds, TOOLHOP_EVAL_IDS_FILE } from './eval-ids.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

const tmp = tempDir('toolhop-eval-ids');
const file = (name: string, body: unknown) => {
  const p = join(tmp, name);
  writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body));
  return p;
};

describe('ToolHop eval ids, read from their data file', () => {
  it('the bundled file is the reference layout, and the optimizer keeps exactly its ids out of the splits', () => {
    // Oracle: the file's own JSON, read here without the module under test.
    const raw = JSON.parse(readFileSync(fromRoot('cases', 'toolhop', 'toolhop_eval_ids.json'), 'utf8')) as {
      dataset: string;
      n: number;
      ids: number[];
    };
    expect(raw.dataset).toBe('toolhop');
    expect(raw.ids).toHaveLength(raw.n);
    expect(TOOLHOP_EVAL_IDS_FILE).toBe(fromRoot('cases', 'toolhop', 'toolhop_eval_ids.json'));
    expect([...toolhopEvalIds()].sort()).toEqual(raw.ids.map(String).sort());
    const rows = Array.from({ length: 140 }, (_, i) => ({ id: String(i), stratum: 'x' }));
    const s = drawSplits(rows, { trainSize: 10, valSize: 10, seed: 3, allowEvalIds: false, evalIds: toolhopEvalIds() });
    expect(new Set(s.excludedEvalIds)).toEqual(new Set(raw.ids.map(String)));
  });

  it('another file gives other ids (the code holds no list of its own)', () => {
    const ids = readEvalIds(file('ids.json', { dataset: 'toolhop', ids: [5, 7, '12'] }));
    expect([...ids]).toEqual(['5', '7', '12']);
    expect(describeIds(ids)).toBe('3 ids');
    expect(describeIds(new Set(['2', '0', '1']))).toBe('0–2');
    const rows = Array.from({ length: 30 }, (_, i) => ({ id: String(i), stratum: 'x' }));
    expect(
      drawSplits(rows, { trainSize: 5, valSize: 5, seed: 0, allowEvalIds: false, evalIds: ids }).excludedEvalIds,
    ).toEqual(['5', '7', '12']);
  });

  it('a bad file is one line naming the file and the field', () => {
    expect(() => readEvalIds(file('bad.json', { dataset: 'toolhop', ids: [1, -2] }))).toThrow(
      /bad\.json: field ids\[1\]: /,
    );
    expect(() => readEvalIds(file('other.json', { dataset: 'bfcl', ids: [1] }))).toThrow(
      /other\.json: field dataset: /,
    );
    expect(() => readEvalIds(file('broken.json', '{'))).toThrow(/broken\.json: /);
  });

  // The reference checkout (TOOLGAUGE_MPB_REF=/path/to/mas-promptbench) holds the original file.
  const ref = process.env.TOOLGAUGE_MPB_REF;
  const refFile = ref ? join(ref, 'benchmarks', 'toolhop', 'toolhop_eval_ids.json') : '';
  it.skipIf(!ref || !existsSync(refFile))(
    `is the reference's file byte for byte${ref ? '' : ' — SKIPPED: set TOOLGAUGE_MPB_REF to a MAS-PromptBench checkout'}`,
    () => {
      expect(readFileSync(TOOLHOP_EVAL_IDS_FILE, 'utf8')).toBe(readFileSync(refFile, 'utf8'));
    },
  );
});
