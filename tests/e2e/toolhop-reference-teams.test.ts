// The reference's own ToolHop teams (MAS-PromptBench's independent and decentralized LangGraph runners, unmodified,
// from a checkout named by TOOLGAUGE_TOOLHOP_REF, outside this repository) against toolgauge's simulator, beside
// toolgauge's own teams on the same simulator and rows. The reference's requests carry no toolgauge header, so the
// simulator tells its members apart by their conversations (harness/toolhop/sim-member.ts); on a seeded coin policy
// every row must then get the same verdict and answer, and the team fields of results.jsonl must agree field by
// field. Python stand-ins for openai and huggingface_hub (fixtures/toolhop/ref-shims) run the reference offline,
// reading the data file from a hub cache made here. Skipped visibly without TOOLGAUGE_TOOLHOP_REF.
// TOOLGAUGE_TOOLHOP_REF_ROWS (default 6) limits the rows; TOOLGAUGE_TOOLHOP_REF_DATA names the data file (default
// ../shared/data/toolhop/ToolHop.sample.json where present, else the bundled sample).
import { execa } from 'execa';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { pythonCommand } from '../../harness/core/pyliteral/python-oracle.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { loadDatasetFile } from '../../harness/toolhop/dataset.ts';
import { toolhopResponder } from '../../harness/toolhop/sim-responder.ts';
import { toolhopSuite } from '../../harness/toolhop/suite.ts';
import { readLines, tempDir } from '../helpers/cli.ts';

const REF = process.env.TOOLGAUGE_TOOLHOP_REF;
const ROWS = Number(process.env.TOOLGAUGE_TOOLHOP_REF_ROWS || 6);
const SHARED = fromRoot('..', 'shared', 'data', 'toolhop', 'ToolHop.sample.json');
const DATA = resolve(
  process.env.TOOLGAUGE_TOOLHOP_REF_DATA || (existsSync(SHARED) ? SHARED : fromRoot('cases', 'toolhop', 'sample.json')),
);
const RUNNERS = {
  independent: join('topologies', 'independent', 'toolhop', 'langgraph_toolhop.py'),
  decentralized: join('topologies', 'decentralized', 'langgraph', 'toolhop', 'langgraph_toolhop.py'),
} as const;
const AGENTS = 4;
const ROUNDS = 2;
const POLICIES = ['sim:coin', 'sim:coin?p=0.5&seed=3', 'sim:coin?p=0.4&seed=11&wrong=diverse'];

const skip = !REF
  ? 'set TOOLGAUGE_TOOLHOP_REF to a MAS-PromptBench checkout'
  : Object.values(RUNNERS).some((r) => !existsSync(join(REF, r)))
    ? `no ToolHop team runners under ${REF}`
    : !existsSync(DATA)
      ? `no data file ${DATA}`
      : '';
if (skip) console.warn(`[toolhop reference teams] skipped: ${skip}`);

type Agent = Record<string, unknown>;
type Row = Record<string, unknown> & { id: unknown; correct: boolean; per_agent?: Agent[]; per_peer?: Agent[] };

/** The line fields both runners write the same way whatever the prompts' wording and the clock. */
const LINE_FIELDS = [
  'id',
  'idx',
  'question',
  'gold_answer',
  'style',
  'predicted_answer',
  'answer_correct',
  'correct',
  'turns',
  'tool_calls',
  'n_agents',
  'n_rounds',
  'winner',
  'buckets',
  'completion_tokens',
  'n_llm_calls',
  'n_tool_calls',
];
/**
 * A voter's fields. Left out: `solve_s` (the clock) and `previous_tool_content`, which is the dataset tool's own
 * output and so the reference's Python environment's (a tool needing pytz fails where it is missing; a set's order
 * changes with Python's hash seed), not the team's.
 */
const AGENT_FIELDS = [
  'role',
  'seed',
  'predicted_answer',
  'answer_key',
  'answer_correct',
  'correct',
  'turns',
  'tool_calls',
  'final_content',
];

/** A Hugging Face hub cache holding the data file as `bytedance-research/ToolHop` `data/ToolHop.json`. */
function hubCache(): string {
  const home = tempDir('toolhop-ref-teams-hf');
  const repo = join(home, 'hub', 'datasets--bytedance-research--ToolHop');
  const rev = '0'.repeat(40);
  mkdirSync(join(repo, 'refs'), { recursive: true });
  mkdirSync(join(repo, 'snapshots', rev, 'data'), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), rev);
  symlinkSync(DATA, join(repo, 'snapshots', rev, 'data', 'ToolHop.json'));
  return home;
}

/** The differences between two lines on the compared fields (dicts compared whatever their key order). */
function lineDiffs(a: Row, b: Row): string[] {
  const same = (x: unknown, y: unknown) => JSON.stringify(sorted(x)) === JSON.stringify(sorted(y));
  const out = LINE_FIELDS.filter((k) => !same(a[k], b[k])).map(
    (k) => `${String(a.id)}: ${k} ${JSON.stringify(a[k])} != ${JSON.stringify(b[k])}`,
  );
  for (const list of ['per_agent', 'per_peer'] as const) {
    const xs = a[list] ?? [];
    const ys = b[list] ?? [];
    if (xs.length !== ys.length) out.push(`${String(a.id)}: ${list} has ${xs.length} != ${ys.length} voters`);
    xs.forEach((x, i) => {
      for (const k of AGENT_FIELDS)
        if (!same(x[k], ys[i]?.[k]))
          out.push(`${String(a.id)}: ${list}[${i}].${k} ${JSON.stringify(x[k])} != ${JSON.stringify(ys[i]?.[k])}`);
    });
  }
  return out;
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, x]) => [k, sorted(x)]),
    );
  return v;
}

describe.skipIf(!!skip)(
  `the reference's ToolHop teams on toolgauge's simulator agree with toolgauge's teams${skip ? ` — SKIPPED: ${skip}` : ''}`,
  () => {
    let sim: SimServer;
    let hf: string;
    beforeAll(async () => {
      sim = await startSimServer({ responders: { toolhop: toolhopResponder(async () => loadDatasetFile(DATA)) } });
      hf = hubCache();
    });
    afterAll(() => sim?.close());

    for (const topology of ['independent', 'decentralized'] as const)
      for (const policy of POLICIES)
        it(`${topology}, ${policy}: the same verdict, answer and team fields on every row`, async () => {
          const tag = `${topology}-${policy.replace(/[^a-z0-9]+/g, '_')}`;
          const refOut = tempDir(`toolhop-ref-teams-${tag}`);
          const r = await execa(
            process.env.TOOLGAUGE_REF_PYTHON || pythonCommand(),
            [RUNNERS[topology], '--limit', String(ROWS), '--out-dir', refOut],
            {
              cwd: REF,
              reject: false,
              env: {
                PYTHONPATH: fromRoot('fixtures', 'toolhop', 'ref-shims'),
                HF_HOME: hf,
                HF_HUB_OFFLINE: '1',
                VLLM_BASE_URL: sim.url,
                MODEL_ID: policy,
                TOOLHOP_ALLOW_DATASET_EXEC: '1',
                INDEPENDENT_N_AGENTS: String(AGENTS),
                DECENTRALIZED_N_AGENTS: String(AGENTS),
                DECENTRALIZED_N_ROUNDS: String(ROUNDS),
              },
            },
          );
          expect(r.exitCode, String(r.stderr).slice(-2000)).toBe(0);
          const run = await runSuite(toolhopSuite, {
            TOOLGAUGE_MODEL: policy,
            OPENAI_BASE_URL: sim.url,
            TOOLHOP_DATA: DATA,
            TOOLHOP_LIMIT: String(ROWS),
            TOOLHOP_ALLOW_DATASET_EXEC: '1',
            TOOLHOP_TOPOLOGY: topology,
            TOOLHOP_TEAM_SIZE: String(AGENTS),
            ...(topology === 'decentralized' ? { TOOLHOP_ROUNDS: String(ROUNDS) } : {}),
            TOOLGAUGE_OUT_DIR: tempDir(`toolhop-tg-teams-${tag}`),
          });
          const ref = readLines<Row>(join(refOut, 'results.jsonl'));
          const ours = new Map(readLines<Row>(join(run.outDir, 'results.jsonl')).map((b) => [String(b.id), b]));
          expect(ref.length).toBe(ROWS);
          expect(ours.size).toBe(ROWS);
          const diffs = ref.flatMap((a) => {
            const b = ours.get(String(a.id));
            return b ? lineDiffs(a, b) : [`${String(a.id)}: no toolgauge line`];
          });
          const agree = ref.filter((a) => {
            const b = ours.get(String(a.id));
            return b && a.correct === b.correct && a.predicted_answer === b.predicted_answer;
          }).length;
          console.info(
            `[toolhop reference teams] ${topology}, ${policy}: ${agree}/${ROWS} rows with the same verdict and answer`,
          );
          expect(diffs.slice(0, 8)).toEqual([]);
        }, 300_000);
  },
);
