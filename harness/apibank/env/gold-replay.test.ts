// Oracle: derived/gold_replay_all_753.json holds the reference runner's gold replay of every task (its verdict and
// error). The environment's replay must give the same verdict and error for each of the 753, except the 10 whose
// gold API needs the network or absent modules (Dictionary, SearchEngine, Translate), which it reports undetermined.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDatabases, loadFrozenToolSearcher, replayGold, type ScoreOptions } from './index.ts';
import { EXTERNAL_APIS } from './reference-oracle.ts';
import { APIBANK_DATA, buildTasks, hasApibankData } from './testkit.ts';

const present = hasApibankData();
if (!present) console.warn(`[apibank env] gold replay oracle skipped: no API-Bank data at ${APIBANK_DATA}`);

describe.skipIf(!present)(
  'gold replay of all 753 tasks equals the reference (derived/gold_replay_all_753.json)',
  () => {
    it('same verdict and error text for every task', () => {
      const opts: ScoreOptions = {
        toolSearcher: 'official',
        databases: loadDatabases(join(APIBANK_DATA, 'api-bank/init_database')),
        frozen: {
          '2': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level2.json'), '2'),
          '3': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level3.json'), '3'),
        },
      };
      const want = JSON.parse(readFileSync(join(APIBANK_DATA, 'derived/gold_replay_all_753.json'), 'utf8')) as Record<
        string,
        { correct: boolean; error: string | null; gold_api_name: string }
      >;
      const tasks = (['1', '2', '3'] as const).flatMap((l) => buildTasks(l));
      expect(tasks.map((t) => t.id).sort()).toEqual(Object.keys(want).sort());
      const diffs: string[] = [];
      let undetermined = 0;
      for (const t of tasks) {
        const r = replayGold(t, opts);
        const w = want[t.id]!;
        if (EXTERNAL_APIS.has(w.gold_api_name)) {
          undetermined++;
          if (r.correct !== null) diffs.push(`${t.id}: expected undetermined, got ${r.correct}`);
          continue;
        }
        if (r.correct !== w.correct || (r.correct === false && r.reason !== w.error)) {
          diffs.push(`${t.id}: ours ${r.correct} ${r.reason} | reference ${w.correct} ${w.error}`);
        }
      }
      expect(diffs).toEqual([]);
      expect(undetermined).toBe(10);
    });
  },
);
