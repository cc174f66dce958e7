// Differential agreement of the API-Bank environment with the reference runner: every task of each level (or
// TOOLGAUGE_APIBANK_DIFF_TASKS per level), every generated call (variants.ts), scored both ways.
//   TOOLGAUGE_APIBANK_REF=/path/to/MAS-PromptBench npx tsx bench/apibank-env.ts [1|2|3 ...]
// APIBANK_TOOLSEARCHER_SCORER=keyword scores ToolSearcher rows with the offline keyword scorer on both sides;
// TOOLGAUGE_APIBANK_ORACLE_EMBED=letters gives both sides the same stand-in embedding model, so cache misses are
// scored through the embedding branch instead of being undetermined; TOOLGAUGE_APIBANK_DIFF_RANDOM=N adds N calls per
// task with arguments replaced by random Python values (seeded from TOOLGAUGE_APIBANK_DIFF_SEED, default 1000).
import { join } from 'node:path';
import { loadDatabases, loadFrozenToolSearcher, type ScoreOptions } from '../harness/apibank/env/index.ts';
import {
  compareCases,
  emptyTally,
  EXTERNAL_APIS,
  letterEmbeddingFallback,
  ReferenceScorer,
} from '../harness/apibank/env/reference-oracle.ts';
import { APIBANK_DATA, buildTasks, hasApibankData } from '../harness/apibank/env/testkit.ts';
import { randomCases } from '../harness/apibank/env/arbitraries.ts';
import { callCases } from '../harness/apibank/env/variants.ts';

if (!hasApibankData()) throw new Error(`no API-Bank data at ${APIBANK_DATA}`);
const embed = process.env['TOOLGAUGE_APIBANK_ORACLE_EMBED'] === 'letters' ? 'letters' : 'none';
const ref = await ReferenceScorer.start(undefined, embed);
if ('skip' in ref) throw new Error(ref.skip);
const mode = process.env['APIBANK_TOOLSEARCHER_SCORER'] === 'keyword' ? 'keyword' : 'official';
const opts: ScoreOptions = {
  toolSearcher: mode,
  ...(embed === 'letters' ? { embeddingFallback: letterEmbeddingFallback } : {}),
  databases: loadDatabases(join(APIBANK_DATA, 'api-bank/init_database')),
  frozen: {
    '2': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level2.json'), '2'),
    '3': loadFrozenToolSearcher(join(APIBANK_DATA, 'derived/toolsearcher_frozen_level3.json'), '3'),
  },
};
const limit = Number(process.env['TOOLGAUGE_APIBANK_DIFF_TASKS'] ?? Infinity);
const levels = (process.argv.slice(2).length ? process.argv.slice(2) : ['1', '2', '3']) as Array<'1' | '2' | '3'>;
for (const level of levels) {
  const t = emptyTally();
  const frozen = opts.frozen![level === '3' ? '3' : '2']!;
  const recorded = Object.keys(frozen.outputsByKeyword);
  const tasks = buildTasks(level)
    .filter((x) => !EXTERNAL_APIS.has(x.ground_truth.api_name))
    .slice(0, limit);
  const t0 = Date.now();
  const random = Number(process.env['TOOLGAUGE_APIBANK_DIFF_RANDOM'] ?? 0);
  for (const [i, task] of tasks.entries()) {
    const cases = callCases(task, recorded.slice(i % recorded.length, (i % recorded.length) + 3));
    await compareCases(
      ref,
      task,
      random > 0
        ? [...cases, ...randomCases(task, Number(process.env['TOOLGAUGE_APIBANK_DIFF_SEED'] ?? 1000) + i, random)]
        : cases,
      opts,
      t,
    );
  }
  const pct = (a: number, b: number): string => `${a}/${b} (${((100 * a) / Math.max(b, 1)).toFixed(2)}%)`;
  console.log(
    `level ${level} (ToolSearcher ${mode}${embed === 'letters' ? ', letter-count stand-in embeddings' : ''}): ${tasks.length} tasks, ${t.cases} calls in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
  console.log(`  verdicts agree where both determined: ${pct(t.agree, t.bothDetermined)}`);
  console.log(
    `  undetermined: ours ${t.oursUndetermined}, reference ${t.refUndetermined} (ToolSearcher cache misses without embeddings)`,
  );
  console.log(
    `  stage agree ${pct(t.stageAgree, t.bothDetermined)}; error text agree ${pct(t.reasonAgree, t.reasonCompared)}; result repr agree ${pct(t.resultAgree, t.resultCompared)}`,
  );
  for (const d of t.disagreements.slice(0, 15)) console.log(`  ${d.slice(0, 400)}`);
}
await ref.close();
