// Task loading: the reference's ids and selection (on the real data when present), and one-line errors for bad rows.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolSearcherModeOf } from './scoring.ts';
import { readApibankSettings } from './settings.ts';
import { ApibankData, DATA_LAYOUT, readDialogue, selectTasks } from './tasks.ts';
import { HAS_SHARED_APIBANK, SHARED_APIBANK } from './testkit.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

describe('API-Bank data errors', () => {
  it('a bad dialogue row is one line naming the file, the row and the field', () => {
    const dir = tempDir('apibank');
    const f = join(dir, 'X-level-1-1.jsonl');
    writeFileSync(
      f,
      '{"role": "User", "text": "hi"}\n{"role": "API", "api_name": "A", "param_dict": {"a": 1}, "result": 5}\n',
    );
    expect(() => readDialogue(f)).toThrow(`${f}: row 2: field result:`);
    writeFileSync(f, '{"role": "User", "text": "hi"}\n{"role": "API"\n');
    expect(() => readDialogue(f)).toThrow(`${f}: row 2: not JSON`);
    const gone = join(dir, 'gone.jsonl');
    expect(() => readDialogue(gone)).toThrow(`${gone}: cannot read the dialogue file (ENOENT)`);
  });

  it('a manifest id that names no task is an error naming the manifest and the position', () => {
    const dir = tempDir('apibank');
    mkdirSync(join(dir, DATA_LAYOUT.level1), { recursive: true });
    writeFileSync(
      join(dir, DATA_LAYOUT.level1, 'A-level-1-1.jsonl'),
      '{"role": "User", "text": "hi"}\n{"role": "API", "api_name": "GetToday", "param_dict": {}, "result": {"api_name": "GetToday", "input": {}, "output": "2023-01-01", "exception": null}}\n',
    );
    const m = join(dir, 'm.json');
    writeFileSync(m, JSON.stringify({ ids: ['A-level-1-1.jsonl::0', 'A-level-1-1.jsonl::1'] }));
    expect(() => selectTasks(new ApibankData(dir), { level: '1', manifest: m })).toThrow(
      `${m}: field ids[1]: 'A-level-1-1.jsonl::1' names no API-Bank task`,
    );
    expect(
      selectTasks(new ApibankData(dir), { level: '1', manifest: m, limit: 1 }).map((t) => [t.id, t.gold_api_call]),
    ).toEqual([['A-level-1-1.jsonl::0', '[GetToday()]']]);
  });

  it('level aliases and the reference preset', () => {
    expect(readApibankSettings({ TOOLGAUGE_APIBANK_LEVEL: 'Level-2' }).level).toBe('2');
    expect(() => readApibankSettings({ TOOLGAUGE_APIBANK_LEVEL: '4' })).toThrow(/unknown API-Bank level '4'/);
    expect(readApibankSettings({}).sampling).toEqual({
      temperature: 0.2,
      topP: 0.9,
      maxTokens: 1024,
      extraBody: { repetition_penalty: 1.05, chat_template_kwargs: { enable_thinking: false } },
    });
    expect(readApibankSettings({ TOOLGAUGE_APIBANK_PRESET: 'none' }).sampling).toEqual({ temperature: 0 });
  });

  it("the ToolSearcher scorer defaults per task level as the reference's toolsearcher_scorer does; a flag wins", () => {
    const unset = readApibankSettings({}).toolSearcher;
    expect((['1', '2', '3'] as const).map((l) => toolSearcherModeOf(unset, l))).toEqual([
      'keyword',
      'official',
      'official',
    ]);
    expect(
      toolSearcherModeOf(readApibankSettings({ TOOLGAUGE_APIBANK_TOOLSEARCHER_SCORER: 'official' }).toolSearcher, '1'),
    ).toBe('official');
  });
});

describe.skipIf(!HAS_SHARED_APIBANK)(
  `API-Bank selection on the real data${HAS_SHARED_APIBANK ? '' : ' — SKIPPED: needs ../shared/data/apibank'}`,
  () => {
    const data = new ApibankData(SHARED_APIBANK);
    it('level counts 389/119/245; the default sets are the 100 frozen ids (33/33/34) and the curated lists (100/100/245)', () => {
      expect(['1', '2', '3'].map((l) => data.allTasks(l as '1').length)).toEqual([389, 119, 245]);
      const all = selectTasks(data, { level: 'all' });
      expect(['1', '2', '3'].map((l) => all.filter((t) => t.level === l).length)).toEqual([33, 33, 34]);
      expect(['1', '2', '3'].map((l) => selectTasks(data, { level: l as '1' }).length)).toEqual([100, 100, 245]);
    });

    it('--only matches a combined id with or without its prefix, then offset and limit apply', () => {
      const all = selectTasks(data, { level: 'all' });
      const [a, b, c] = [all[0]!.id, all[1]!.id, all[2]!.id];
      const picked = selectTasks(data, {
        level: 'all',
        only: [a, b.replace(/^level-\d::/, ''), c],
        offset: 1,
        limit: 1,
      });
      expect(picked.map((t) => t.id)).toEqual([b]);
      expect(all[2]!.id).toMatch(/^level-3::level-3\.json::\d+::\d+$/);
    });
  },
);
