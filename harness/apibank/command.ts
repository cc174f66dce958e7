import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { DataError, UsageError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { rescoreFolder } from './rescore.ts';
import { scoreOptionsFor, toolSearcherModeOf } from './scoring.ts';
import { APIBANK_ENV, type ApibankSettings } from './settings.ts';
import { APIBANK_POLICIES } from './sim-policy.ts';
import { apibankSuite } from './suite.ts';
import { ApibankData } from './tasks.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { flagSchemas, parseFlags, type FlagSpecs } from '../kit/flags/flags.ts';
import type { CommandRunner } from '../kit/command.ts';
import { MODEL_FLAGS } from '../kit/flags/model-flags.ts';
import { applyConfig } from '../kit/flags/config-file.ts';
import { assertOutDirWritable } from '../kit/out-dir-check.ts';

export const USAGE = `toolgauge apibank --data DIR [--level 1|2|3|all] [--limit N] [--offset N] [--only ID,…] [--curated-path FILE]
               [--topology single|independent|decentralized|centralized|sequential] [--prompts DIR]
               [--toolsearcher-scorer official|keyword] [--toolsearcher-embeddings CMD] [--preset reference|none]
               [--max-tokens N] [--model NAME] [--base-url URL] [--concurrency N] [--out-dir DIR] [--resume]
               [--gate EXPR] [--shard i/n] [-t PATTERN] [--print-report]
               [--config FILE.yaml] [--smoke]   (every flag as a key; docs/config.md)
toolgauge apibank rescore DIR --data DIR [--out-dir OUT] [--toolsearcher-scorer official|keyword]
               [--toolsearcher-embeddings CMD]

  toolgauge apibank runs API-Bank as the reference runner (MAS-PromptBench's langgraph_apibank.py) runs it: one
  chat completion per task with its system and user messages, the last parseable [Name(k=v, …)] call of the reply
  extracted, and the call scored by API-Bank's own semantics (prior gold calls replayed on fresh databases, the
  predicted call executed, the gold API's correctness check). One test per task (apibank › L<level> › <id>).
  Writes OUT/predictions.jsonl, OUT/results.jsonl and OUT/traces/ as the reference writes them, and summary.json
  and report.md with accuracy per level (default OUT: results/apibank/<topology>_langgraph/).

  --data         the API-Bank data folder: api-bank/ (init_database, lv1-lv2-samples, test_data), derived/ and
                 mas-promptbench/ (TOOLGAUGE_APIBANK_DATA)
  --level        1, 2, 3 or all (default all: the reference's 100 frozen eval ids); 1/2/3: the curated lists
  --limit N      the first N of the set (default: all of it; the reference's CLI default is 2, its sweep passes 100)
  --offset N, --only ID,…   as the reference (an id of the combined level matches with or without its prefix)
  --curated-path a manifest {"ids": [...]} instead of the level's default set
  --topology     single (default) or a team: independent (4 vote), decentralized (4 × 2 rounds, vote),
                 centralized (3 workers + manager), sequential (4 stages)
  --prompts      role prompts as <dir>/<topology>/apibank/<role>.txt (default: DATA/mas-promptbench/prompts)
  --toolsearcher-scorer   official (the reference's default for level-2/3 tasks; keyword for level 1): the frozen
                 keyword cache; a miss is undetermined,
                 counted apart, unless --toolsearcher-embeddings names a command that picks the nearest catalog
                 item (EmbeddingRequest JSON on stdin, {"name": …} out); keyword: exact normalized keywords
  --preset       reference (default): temperature 0.2, top_p 0.9, max_tokens 1024, seed 0, repetition_penalty
                 1.05, enable_thinking false; none: only what you set

  rescore scores a reference output folder again (its results.jsonl, else predictions.jsonl, field
  predicted_answer) and writes OUT/results.jsonl (one line per row, with toolgauge's verdict) and
  OUT/rescore.json (accuracy per level with 95% Wilson intervals, undetermined apart, agreement with the folder).
  Default OUT: DIR/toolgauge-rescore.`;

export const RUN_FLAGS: FlagSpecs = {
  data: { type: 'string', schema: z.string().min(1), description: 'the API-Bank data folder' },
  level: { type: 'string', description: '1, 2, 3 or all' },
  limit: { type: 'string', schema: flagSchemas.positiveInt },
  offset: { type: 'string', schema: flagSchemas.nonNegativeInt },
  only: { type: 'string', schema: flagSchemas.idList },
  'curated-path': { type: 'string', schema: z.string().min(1) },
  prompts: { type: 'string', schema: z.string().min(1) },
  'toolsearcher-scorer': { type: 'string', values: ['official', 'keyword'] },
  'toolsearcher-embeddings': { type: 'string', schema: z.string().min(1) },
  topology: { type: 'string', values: ['single', 'independent', 'decentralized', 'centralized', 'sequential'] },
  preset: { type: 'string', values: ['reference', 'none'] },
  'max-tokens': { type: 'string', schema: flagSchemas.positiveInt },
};

/** Every flag `toolgauge apibank` accepts (its `--help` lists them all). */
export const ACCEPTED_FLAGS: FlagSpecs = { ...MODEL_FLAGS, ...RUN_FLAGS };

export async function run(argv: string[], runner: CommandRunner): Promise<number> {
  if (argv[0] === 'rescore') return rescore(argv.slice(1));
  return runner.runSuite<ApibankSettings>(
    {
      command: 'apibank',
      suite: apibankSuite,
      flags: RUN_FLAGS,
      env: APIBANK_ENV,
      files: ['data', 'curated-path', 'prompts'],
      validate(kc, s) {
        if (!s.data)
          throw new UsageError(
            'toolgauge apibank: --data DIR is required (the API-Bank data folder, or TOOLGAUGE_APIBANK_DATA)',
          );
        if (kc.run.usesSimulator) {
          const spec = parsePolicySpec(kc.run.model);
          if (!(APIBANK_POLICIES as readonly string[]).includes(spec.name))
            throw new UsageError(
              `toolgauge apibank: --model sim:${spec.name} has no API-Bank behaviour (use sim:${APIBANK_POLICIES.join(', sim:')})`,
            );
        }
        if (kc.run.trials > 1)
          throw new UsageError(
            'toolgauge apibank: --trials is not available (the reference writes one trace per task id)',
          );
      },
    },
    applyConfig('apibank', argv, ACCEPTED_FLAGS, {}, process.env),
  );
}

const RESCORE_FLAGS: FlagSpecs = {
  data: { type: 'string', schema: z.string().min(1) },
  'out-dir': { type: 'string', schema: z.string().min(1) },
  'toolsearcher-scorer': { type: 'string', values: ['official', 'keyword'] },
  'toolsearcher-embeddings': { type: 'string', schema: z.string().min(1) },
};

async function rescore(argv: string[]): Promise<number> {
  const dir = argv[0] && !argv[0].startsWith('-') ? argv[0] : undefined;
  if (!dir)
    throw new UsageError(
      'toolgauge apibank rescore: give the reference output folder: toolgauge apibank rescore DIR --data DATA',
    );
  const { values } = parseFlags('apibank rescore', argv.slice(1), RESCORE_FLAGS);
  const data = (values.data as string | undefined) ?? process.env.TOOLGAUGE_APIBANK_DATA;
  if (!data) throw new UsageError('toolgauge apibank rescore: --data DIR is required (the API-Bank data folder)');
  if (!existsSync(dir)) throw new UsageError(`toolgauge apibank rescore: '${dir}' does not exist`);
  if (!existsSync(data)) throw new UsageError(`toolgauge apibank rescore: --data '${data}' does not exist`);
  const out = resolve((values['out-dir'] as string | undefined) ?? join(dir, 'toolgauge-rescore'));
  assertOutDirWritable('toolgauge apibank rescore', out);
  const scorer = values['toolsearcher-scorer'] as 'official' | 'keyword' | undefined;
  const embeddings = (values['toolsearcher-embeddings'] as string | undefined)?.split(/\s+/).filter(Boolean);
  try {
    const r = rescoreFolder(resolve(dir), new ApibankData(resolve(data)), (level) =>
      scoreOptionsFor(resolve(data), toolSearcherModeOf(scorer, level), embeddings),
    );
    writeFileAtomic(
      join(out, 'results.jsonl'),
      r.rows.map((x) => JSON.stringify(x)).join('\n') + (r.rows.length ? '\n' : ''),
    );
    writeFileAtomic(
      join(out, 'rescore.json'),
      JSON.stringify(
        {
          source: r.file,
          toolsearcher_scorer: scorer ?? 'official (keyword for level-1 tasks)',
          embeddings: embeddings?.join(' ') ?? null,
          ...r.summary,
        },
        null,
        2,
      ) + '\n',
    );
    const s = r.summary as {
      n: number;
      correct: number;
      wrong: number;
      undetermined: number;
      accuracy: number | null;
      by_level: Record<string, { accuracy: number | null; n: number }>;
      agreement_with_folder: { compared: number; same: number };
    };
    const pct = (x: number | null) => (x === null ? '—' : `${(100 * x).toFixed(1)}%`);
    process.stdout.write(
      `rescored ${s.n} rows of ${r.file}: ${s.correct} correct, ${s.wrong} wrong, ${s.undetermined} undetermined; accuracy ${pct(s.accuracy)} of determined` +
        `${Object.entries(s.by_level)
          .map(([l, x]) => `; ${l} ${pct(x.accuracy)} (n=${x.n})`)
          .join('')}` +
        `; same verdict as the folder on ${s.agreement_with_folder.same}/${s.agreement_with_folder.compared}\n  written: ${out}/results.jsonl, ${out}/rescore.json\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof DataError) throw new UsageError(`toolgauge apibank rescore: ${err.message}`);
    throw err;
  }
}
