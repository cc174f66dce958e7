// Test support: the reference's task list over the staged data (L1/L2 dialogue files, level-3.json), built here
// independently of the suite's loader so the environment's tests need nothing else, and the staged data location.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pyToJson } from '../../core/pyliteral/index.ts';
import type { ApiBankLevel, ApiBankTask, ApiTurn, Json } from './index.ts';
import { normalizeParams } from './normalize.ts';

/** ../shared/data/apibank from the repository root, or TOOLGAUGE_APIBANK_DATA. */
export const APIBANK_DATA = resolve(
  process.env['TOOLGAUGE_APIBANK_DATA'] ?? join(import.meta.dirname, '../../../../shared/data/apibank'),
);
export const hasApibankData = (): boolean => existsSync(join(APIBANK_DATA, 'derived/gold_replay_all_753.json'));

const DIRS: Record<'1' | '2', string> = { '1': 'level-1-given-desc', '2': 'level-2-toolsearcher' };

type Row = { role: string; api_name?: string; param_dict?: Record<string, Json>; result?: Json };

/** Every task of a level, with its combined id `level-<k>::<source id>`. */
export function buildTasks(level: ApiBankLevel, root = APIBANK_DATA): ApiBankTask[] {
  const tasks: ApiBankTask[] = [];
  if (level === '3') {
    const samples = JSON.parse(readFileSync(join(root, 'api-bank/test_data/level-3.json'), 'utf8')) as Array<{
      apis: Array<{ api_name: string; input: Record<string, Json>; output: Json }>;
    }>;
    samples.forEach((s, i) => {
      const rows: ApiTurn[] = s.apis.map((a) => ({
        api_name: a.api_name,
        param_dict: Object.fromEntries(normalizeParams(a.input).map(([k, v]) => [k, pyToJson(v) as Json])),
        result: a.output,
      }));
      const names = [...new Set(s.apis.map((a) => a.api_name))].sort();
      rows.forEach((g, j) =>
        tasks.push({
          id: `level-3::level-3.json::${i}::${j}`,
          level,
          prior_api_turns: rows.slice(0, j),
          ground_truth: g,
          api_names: names,
        }),
      );
    });
    return tasks;
  }
  const dir = join(root, 'api-bank/lv1-lv2-samples', DIRS[level]);
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.jsonl'))
    .sort()) {
    const rows = readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Row);
    const api = rows.filter((r) => r.role === 'API') as unknown as ApiTurn[];
    const names = [...new Set(api.map((r) => r.api_name))].sort();
    api.forEach((g, k) =>
      tasks.push({
        id: `level-${level}::${f}::${2 * k}`,
        level,
        prior_api_turns: api.slice(0, k),
        ground_truth: g,
        api_names: names,
      }),
    );
  }
  return tasks;
}
