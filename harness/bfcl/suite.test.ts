// The BFCL suite in process: settings, the run path (BFCL's loop on a model client that asks the simulator's
// responder, BFCL's checker, toolgauge's view), and the aggregator. The oracle is the answer key: `sim:oracle` must
// pass every case except the keys no output can pass (unpassable.ts) — on the fixtures always, and on a sample of
// every category of BFCL's data when ../shared/data is present (all of it with TOOLGAUGE_BFCL_HEAVY=1).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig, type RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { checkGate } from '../kit/gate.ts';
import { suiteTrialSampling } from '../kit/sampling.ts';
import type { RunContext } from '../kit/types.ts';
import type { ModelClient } from '../model/client.ts';
import { flattenMetrics, nestMetrics } from '../report/summary.ts';
import { parsePolicySpec } from '../sim/policy-spec.ts';
import { aggregateBfcl, bfclAggregator } from './aggregator.ts';
import { ALL_CATEGORIES, isMultiTurn, isRelevanceOrIrrelevance, type BfclCategory } from './categories.ts';
import { answerFile, dataFile, type BfclCase } from './data.ts';
import { disposeExecutors } from './executors.ts';
import type { BfclMeta } from './meta.ts';
import { readBfclSettings, type BfclSettings } from './settings.ts';
import { resolveBfclData, selectCases } from './source.ts';
import { bfclSuite, resultFileOf } from './suite.ts';
import { FIXTURE_DATA, hasReference, hasSharedData, SHARED_CLASSES, SHARED_DATA } from './testkit.ts';
import { UNPASSABLE_KEYS } from './unpassable.ts';

const TOY = fileURLToPath(new URL('../../fixtures/bfcl/classes', import.meta.url));
const HEAVY = process.env.TOOLGAUGE_BFCL_HEAVY === '1';
const run: RunConfig = readConfig({});

afterAll(() => disposeExecutors());

/** A model client whose endpoint is the suite's own simulator responder, called in process (no HTTP). */
function simClient(settings: BfclSettings, model: string): ModelClient {
  const responder = bfclSuite.responder!(run, settings);
  const spec = parsePolicySpec(model);
  const chat: ModelClient['chat'] = async (req, ctx) => {
    const id = ctx.instance.slice(ctx.instance.indexOf(':') + 1);
    const r = await responder.chat!(
      spec,
      { model, messages: req.messages, tools: req.tools },
      { id, instance: ctx.instance, agent: '0', trial: ctx.trial ?? 0 },
    );
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    return {
      kind: 'chat',
      content: r.content,
      tool_calls: r.tool_calls ?? [],
      finish_reason: 'stop',
      usage,
      model,
      latencyMs: 0,
      attempts: 1,
      cached: false,
      retried: [],
    };
  };
  return { chat } as unknown as ModelClient;
}

function ctxFor(settings: BfclSettings, model: string): RunContext<BfclSettings> {
  const client = simClient(settings, model);
  return {
    run: { ...run, model },
    settings,
    trial: 0,
    outDir: '/nonexistent',
    client: () => client,
    sampling: suiteTrialSampling(bfclSuite, { ...run, model }, settings, 0),
    sandbox: () => {
      throw new Error('the BFCL suite does not use the sandbox');
    },
    tracePath: (id) => `traces/${id}.json`,
  };
}

const settingsOf = (env: Record<string, string>) => readBfclSettings(env);

async function runAll(cases: readonly BfclCase[], ctx: RunContext<BfclSettings>) {
  const out: Array<Awaited<ReturnType<typeof bfclSuite.run>>> = [];
  for (const c of cases) out.push(await bfclSuite.run(c, ctx));
  return out;
}

describe('BFCL suite settings', () => {
  it('defaults to simple_python in FC mode; expands groups; refuses unknown and out-of-scope categories in one line', () => {
    const d = settingsOf({});
    expect(d).toMatchObject({ categories: ['simple_python'], mode: 'fc', data: undefined, limit: undefined });
    expect(settingsOf({ TOOLGAUGE_BFCL_CATEGORY: 'multi_turn,simple_python' }).categories).toEqual([
      'multi_turn_base',
      'multi_turn_long_context',
      'multi_turn_miss_func',
      'multi_turn_miss_param',
      'simple_python',
    ]);
    expect(() => settingsOf({ TOOLGAUGE_BFCL_CATEGORY: 'simple_pyhton' })).toThrow(UsageError);
    expect(() => settingsOf({ TOOLGAUGE_BFCL_CATEGORY: 'web_search' })).toThrow(/out of scope/);
    expect(() => settingsOf({ TOOLGAUGE_BFCL_MODE: 'hermes' })).toThrow(/fc or prompt/);
    expect(() => settingsOf({ TOOLGAUGE_BFCL_LIMIT: '0' })).toThrow(UsageError);
  });

  it('selects cases by --limit per category, then --only; names tests bfcl › <category> › <id>', () => {
    const s = settingsOf({ TOOLGAUGE_BFCL_CATEGORY: 'simple_python,parallel', TOOLGAUGE_BFCL_LIMIT: '2' });
    const picked = selectCases(FIXTURE_DATA, s);
    expect(picked.map((c) => c.id)).toEqual(['simple_python_0', 'simple_python_1', 'parallel_0']);
    expect(selectCases(FIXTURE_DATA, { ...s, only: ['parallel_0'] }).map((c) => c.id)).toEqual(['parallel_0']);
    expect(() => selectCases(FIXTURE_DATA, { ...s, only: ['simple_python_2'] })).toThrow(
      /--only: no case 'simple_python_2'/,
    );
    expect(bfclSuite.testName(picked[2]!)).toBe('bfcl › parallel › parallel_0');
  });

  it('without --data, an unreachable hub with a cold cache is one UsageError that says to pass --data DIR', async () => {
    const offline = readConfig({ HF_HOME: '/nonexistent/toolgauge-hf', HF_ENDPOINT: 'http://127.0.0.1:9' });
    await expect(resolveBfclData(offline, settingsOf({}))).rejects.toThrow(/could not download .*Pass --data DIR/);
    await expect(resolveBfclData(run, { ...settingsOf({}), data: TOY })).rejects.toThrow(/lacks 2 file\(s\)/);
  });
});

describe('BFCL suite run path on the fixtures (python3 for the toy multi-turn API)', () => {
  const CATEGORIES =
    'simple_python,parallel,irrelevance,live_relevance,simple_java,multi_turn_base,multi_turn_miss_param';

  it('sim:oracle: every case valid in FC mode; in prompt mode too, except Java (undecided, never guessed)', async () => {
    for (const mode of ['fc', 'prompt'] as const) {
      const s = settingsOf({
        TOOLGAUGE_BFCL_CATEGORY: CATEGORIES,
        TOOLGAUGE_BFCL_DATA: FIXTURE_DATA,
        TOOLGAUGE_BFCL_SOURCE: TOY,
        TOOLGAUGE_BFCL_MODE: mode,
      });
      const cases = selectCases(FIXTURE_DATA, s);
      const done = await runAll(cases, ctxFor(s, 'sim:oracle'));
      for (const [k, d] of done.entries()) {
        const m = d.meta;
        if (mode === 'prompt' && m.category === 'simple_java') {
          expect(m).toMatchObject({ valid: false, error_type: 'toolgauge:undecided', pass: false });
          continue;
        }
        expect(m.valid, `${mode} ${m.id}: ${m.error_type} ${m.bfcl_error ?? ''}`).toBe(true);
        // The records are what rescore writes; the result line is BFCL's own result format.
        expect(d.records!['results.jsonl']).toEqual({ id: m.id, category: m.category, valid: true, error_type: '' });
        expect(Object.keys(d.records!)).toContain(resultFileOf(m.category));
        const trace = JSON.parse(String(d.files![m.trace!])) as {
          bfcl: { multi_turn: { execution: unknown[] } | null };
          messages: unknown[];
        };
        expect(trace.messages.length).toBeGreaterThan(1);
        // Multi-turn: both runs executed and compared turn by turn, in the executor.
        if (isMultiTurn(m.category))
          expect(trace.bfcl.multi_turn!.execution).toHaveLength(cases[k]!.groundTruth!.length);
        else expect(m.layers).not.toBeNull();
      }
    }
  });

  it('state-based checking: a wrong argument fails the multi-turn case at the state comparison; a harness error stays an error', async () => {
    const s = settingsOf({
      TOOLGAUGE_BFCL_CATEGORY: 'multi_turn_base,simple_python',
      TOOLGAUGE_BFCL_DATA: FIXTURE_DATA,
      TOOLGAUGE_BFCL_SOURCE: TOY,
    });
    const [mt] = selectCases(FIXTURE_DATA, { ...s, only: ['multi_turn_base_0'] });
    const wrong = (await bfclSuite.run(mt!, ctxFor(s, 'sim:wrong'))).meta;
    expect(wrong).toMatchObject({ valid: false, pass: false, error_type: 'multi_turn:instance_state_mismatch' });
    expect(bfclSuite.verdict(wrong).message).toMatch(/instance_state_mismatch/);
    const failed = bfclSuite.failed(mt!, 0, 'endpoint failed after 6 attempt(s)');
    expect(failed).toMatchObject({ error: 'endpoint failed after 6 attempt(s)', valid: false, pass: false });
    expect(bfclSuite.verdict(failed).pass).toBe(false);
  });

  it("a parser gap in prompt mode: BFCL fails the fenced call, toolgauge reads it — reported beside BFCL's verdict", async () => {
    const s = settingsOf({
      TOOLGAUGE_BFCL_CATEGORY: 'simple_python',
      TOOLGAUGE_BFCL_DATA: FIXTURE_DATA,
      TOOLGAUGE_BFCL_MODE: 'prompt',
    });
    const metas = (await runAll(selectCases(FIXTURE_DATA, s), ctxFor(s, 'sim:fault?cause=parser_gap'))).map(
      (d) => d.meta,
    );
    for (const m of metas) {
      expect(m).toMatchObject({
        valid: false,
        error_type: 'ast_decoder:decoder_failed',
        deviation: { class: 'bfcl_decoder_refuses', bfcl: 'fail', toolgauge: 'pass' },
      });
    }
    const a = aggregateBfcl(metas, 0);
    expect(a.metrics['accuracy.simple_python']!.value).toBe(0);
    expect(a.metrics['toolgauge.accuracy']!.value).toBe(1);
    expect((a.extra.deviations as Record<string, number>).bfcl_decoder_refuses).toBe(metas.length);
  });
});

// ---------------------------------------------------------------------------------------------------------
// the aggregator

function meta(id: string, category: BfclCategory, valid: boolean, extra: Partial<BfclMeta> = {}): BfclMeta {
  const bits = (x: 0 | 1) => ({
    parse_ok: x,
    schema_valid: x,
    tool_correct: x,
    args_correct: x,
    abstained: null,
    false_trigger: null,
  });
  return {
    suite: 'bfcl',
    id,
    trial: 0,
    error: null,
    pass: valid,
    reason: valid ? null : 'x',
    category,
    valid,
    error_type: valid ? '' : 'value_error:string',
    bfcl_error: null,
    crash: null,
    undecided: null,
    layers: isMultiTurn(category) ? null : { strict: bits(valid ? 1 : 0), lenient: bits(valid ? 1 : 0) },
    toolgauge: { pass: valid, kind: valid ? 'pass' : 'wrong_args', cause: valid ? null : 'model_decision_failure' },
    deviation: null,
    calls_on_abstention_turns: 0,
    unpassable: false,
    requests: 1,
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    wall_ms: 1,
    ...extra,
  };
}

describe('BFCL aggregator', () => {
  const metas = [
    meta('simple_python_0', 'simple_python', true),
    meta('simple_python_1', 'simple_python', true),
    meta('simple_python_2', 'simple_python', false),
    // A harness error is invalid for BFCL (as BFCL scores a case whose inference failed) and counted apart.
    meta('simple_python_3', 'simple_python', false, {
      error: 'endpoint down',
      error_type: 'toolgauge:harness_error',
      layers: null,
      toolgauge: null,
    }),
    meta('multi_turn_base_0', 'multi_turn_base', true),
    meta('multi_turn_base_1', 'multi_turn_base', false),
    meta('live_simple_106-63-0', 'live_simple', false, {
      unpassable: true,
      error_type: 'simple_function_checker:missing_required',
      deviation: {
        class: 'bfcl_rejects_what_toolgauge_accepts',
        bfcl: 'fail',
        toolgauge: 'pass',
        note: 'a required parameter the key lacks',
      },
      toolgauge: { pass: true, kind: 'pass', cause: null },
    }),
  ];
  const a = aggregateBfcl(metas, 7);

  it("BFCL's numbers: per-category accuracy with harness errors counted invalid, and the leaderboard formula", () => {
    expect(a.metrics['accuracy.simple_python']!.value).toBe(2 / 4);
    expect(a.metrics['accuracy.multi_turn_base']!.value).toBe(1 / 2);
    expect(a.metrics['accuracy.live_simple']!.value).toBe(0);
    // non_live = mean(simple = mean(0.5, 0, 0), multiple 0, parallel 0, parallel_multiple 0) = 1/24; live 0;
    // irrelevance 0; multi_turn = mean(0.5, 0, 0, 0) = 1/8.
    expect(a.metrics.overall!.value).toBeCloseTo(0.1 / 24 + 0.3 / 8, 12);
    expect(a.metrics.overall_in_scope!.value).toBeCloseTo((1 / 24 + 3 / 8) / 6, 12);
    expect(a.metrics['group.multi_turn']!.value).toBeCloseTo(1 / 8, 12);
    expect(a.counts).toMatchObject({
      runs: 7,
      valid: 3,
      invalid: 3,
      errors: 1,
      unpassable: 1,
      deviations: 1,
      categories_run: 3,
    });
    expect(a.metrics.error_rate!.value).toBeCloseTo(1 / 7, 12);
    // The layers count single-turn cases that were scored (not the harness error, not multi-turn).
    expect(a.metrics['layers.parse_ok']).toMatchObject({ value: 2 / 4, n: 4 });
    expect(a.metrics['toolgauge.accuracy']!.value).toBeCloseTo(4 / 7, 12);
  });

  it('every metric it reports is a name a gate may use; the summary nests as metrics.accuracy.<category>', () => {
    const names = Object.keys(a.metrics);
    expect(() => checkGate(names.map((n) => `${n}>=0`).join(','), bfclSuite.metricNames(settingsOf({})))).not.toThrow();
    const nested = nestMetrics(a.metrics) as Record<string, Record<string, unknown>>;
    expect(Object.keys(nested.accuracy!).sort()).toEqual(['live_simple', 'multi_turn_base', 'simple_python']);
    expect(Object.keys(flattenMetrics(nested as never)).sort()).toEqual([...names].sort());
  });

  it('report.md: the per-category table, the formula, the deviations and the unpassable keys of this run', () => {
    const agg = bfclAggregator.aggregate(metas, 7, {});
    const summary = {
      schema: 'toolgauge.summary/1',
      suite: 'bfcl',
      notice: null,
      header: { model: 'm' },
      config: { mode: 'fc', categories: ['simple_python'] },
      counts: agg.counts,
      metrics: nestMetrics(agg.metrics),
      breakdowns: {
        category: Object.fromEntries(Object.entries(agg.breakdowns.category!).map(([k, v]) => [k, nestMetrics(v)])),
      },
      errors: agg.errors,
      extra: agg.extra,
      gate: null,
    } as never;
    const md = bfclAggregator.markdown(summary);
    expect(md).toContain(
      'overall            = 0.10·non_live + 0.10·live + 0.10·irrelevance + 0.30·multi_turn + 0.40·agentic',
    );
    expect(md).toMatch(/\| simple_python \| 4 \| 2 \| 50\.00% /);
    expect(md).toMatch(
      /\| live_simple_106-63-0 \| live_simple \| fail \| pass \| bfcl_rejects_what_toolgauge_accepts \|/,
    );
    expect(md).toContain(
      `| live_simple_106-63-0 | simple_function_checker:missing_required | ${UNPASSABLE_KEYS['live_simple_106-63-0']!.why} |`,
    );
    expect(md).toMatch(/## Harness errors[\s\S]*simple_python_3/);
    const outcomes = bfclAggregator.outcomes(metas);
    expect([...outcomes['accuracy.simple_python']!.entries()]).toEqual([
      ['simple_python_0', 1],
      ['simple_python_1', 1],
      ['simple_python_2', 0],
      ['simple_python_3', 0],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// BFCL's own data

const SHARED = hasSharedData() && hasReference();
const PER_CATEGORY = HEAVY ? Infinity : 10;
const PER_MULTI_TURN = HEAVY ? Infinity : 2;

/**
 * BFCL's data folder cut down to the first lines of each category plus the unpassable keys (entries and answers
 * stay paired by line, as BFCL pairs them), so the default run does not parse 4,441 entries.
 */
function sampleOfSharedData(): string {
  if (HEAVY) return SHARED_DATA;
  const dir = mkdtempSync(join(tmpdir(), 'tg-bfcl-sample-'));
  made.push(dir);
  mkdirSync(join(dir, 'possible_answer'));
  symlinkSync(join(SHARED_DATA, 'multi_turn_func_doc'), join(dir, 'multi_turn_func_doc'));
  for (const c of ALL_CATEGORIES) {
    const lines = readFileSync(dataFile(SHARED_DATA, c), 'utf8')
      .split('\n')
      .filter((l) => l.trim());
    const answers = isRelevanceOrIrrelevance(c)
      ? undefined
      : readFileSync(answerFile(SHARED_DATA, c), 'utf8')
          .split('\n')
          .filter((l) => l.trim());
    const keep = lines.map(
      (l, k) =>
        k < (isMultiTurn(c) ? PER_MULTI_TURN : PER_CATEGORY) ||
        Object.keys(UNPASSABLE_KEYS).some((id) => l.includes(`"id": "${id}"`)),
    );
    writeFileSync(dataFile(dir, c), lines.filter((_, k) => keep[k]).join('\n') + '\n');
    if (answers) writeFileSync(answerFile(dir, c), answers.filter((_, k) => keep[k]).join('\n') + '\n');
  }
  return dir;
}

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!SHARED)(
  `sim:oracle on BFCL's data scores 100% except the answer keys BFCL cannot pass${SHARED ? '' : ' — SKIPPED: needs ../shared/data/bfcl'}`,
  () => {
    const data = SHARED ? sampleOfSharedData() : '';

    for (const mode of ['fc', 'prompt'] as const) {
      it(`${mode}: ${HEAVY ? 'every case' : `${PER_CATEGORY} cases per single-turn category, ${PER_MULTI_TURN} per multi-turn one, and every unpassable key`}`, {
        timeout: HEAVY ? 1_800_000 : 60_000,
      }, async () => {
        const s = settingsOf({
          TOOLGAUGE_BFCL_CATEGORY: 'all_scoring',
          TOOLGAUGE_BFCL_DATA: data,
          TOOLGAUGE_BFCL_SOURCE: SHARED_CLASSES,
          TOOLGAUGE_BFCL_MODE: mode,
        });
        const cases = selectCases(data, s);
        expect(cases.filter((c) => Object.hasOwn(UNPASSABLE_KEYS, c.id))).toHaveLength(
          Object.keys(UNPASSABLE_KEYS).length,
        );
        const metas = (await runAll(cases, ctxFor(s, 'sim:oracle'))).map((d) => d.meta);
        // Prompt-mode Java / JavaScript output is decoded by BFCL with tree-sitter: undecided here, never guessed.
        const undecided = metas.filter((m) => m.undecided).map((m) => m.category);
        expect(new Set(undecided)).toEqual(new Set(mode === 'prompt' ? ['simple_java', 'simple_javascript'] : []));
        const failures = metas.filter((m) => !m.valid && !m.undecided);
        const expected = Object.entries(UNPASSABLE_KEYS).filter(
          ([id]) => mode === 'fc' || !id.startsWith('simple_java'),
        );
        expect(failures.map((m) => `${m.id}: ${m.error_type}`).sort()).toEqual(
          expected.map(([id, u]) => `${id}: ${u.error_type}`).sort(),
        );
        expect(metas.every((m) => !m.error)).toBe(true);
        // The report lists exactly those keys, with BFCL's verdict on them.
        const un = aggregateBfcl(metas, 0).extra.unpassable as Array<{ id: string; valid: boolean }>;
        expect(un.map((u) => u.id).sort()).toEqual(Object.keys(UNPASSABLE_KEYS).sort());
        expect(un.every((u) => !u.valid)).toBe(true);
      });
    }
  },
);
