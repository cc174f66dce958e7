import { describe, expect, inject, test } from 'vitest';
import { readConfig } from '../core/config.ts';
import { prepareOutDir, resolveOutDir } from '../core/outdir.ts';
import { loadDatasetFile, selectEntries, type DatasetEntry, type LoadedDataset } from '../toolhop/dataset.ts';
import { instanceKey, loadFinished, tidyForResume, tracePath, writeInstance, type Finished } from '../toolhop/output.ts';
import { runToolhopInstance, type ToolhopOutcome } from '../toolhop/run-instance.ts';
import { hopCount } from '../toolhop/row.ts';
import { resolveDataSource } from '../toolhop/source.ts';
import './matchers.ts';
import type { ToolhopMeta } from './meta.ts';
import { metaFromFinished, metaFromOutcome } from '../toolhop/meta.ts';
import { getRuntime } from './runtime.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    toolgaugeRunId: string;
    toolgaugeSimUrl: string | undefined;
  }
}

/**
 * Turn the selected ToolHop rows into tests: part `part` of `parts` (rows i with i % parts == part - 1), one
 * concurrent test per row and trial, named `toolhop › <id> › hops=<n>` so `-t` filters work.
 */
export async function defineToolhopSuite(part: number, parts: number): Promise<void> {
  const cfg = readConfig();
  const runId = inject('toolgaugeRunId');
  const simUrl = inject('toolgaugeSimUrl');
  const dataset = await loadOnce(cfg);
  const selected = selectEntries(dataset.entries, cfg.toolhop);
  const mine = dealToPart(selected, part, parts);
  const outDir = resolveOutDir(cfg, 'toolhop', cfg.toolhop.topology);
  prepareOutDir(outDir, runId, cfg.resume, tidyForResume);
  const finished = cfg.resume ? loadFinished(outDir) : new Map<string, Finished>();

  if (cfg.toolhop.allowDatasetExec && mine.length) {
    // Start the sandbox workers while Vitest is still collecting, not on the first tool call.
    void getRuntime(simUrl).sandbox().warm().catch(() => undefined);
  }

  describe(`toolhop (part ${part}/${parts})`, () => {
    // Vitest fails a file without tests; a small selection can leave a part empty.
    if (!mine.length) test.skip(`toolhop › (no instances in part ${part}/${parts})`, () => {});
    for (const entry of mine) {
      for (let trial = 0; trial < cfg.trials; trial++) {
        const hops = entry.ok ? hopCount(entry.row) : 0;
        const name = `toolhop › ${entry.id} › hops=${hops}${cfg.trials > 1 ? ` › trial=${trial}` : ''}`;
        test.concurrent(name, async ({ task, annotate }) => {
          const prev = finished.get(instanceKey(entry.id, trial));
          let meta: ToolhopMeta;
          if (prev) {
            meta = metaFromFinished(prev);
          } else {
            const outcome = entry.ok
              ? await runToolhopInstance(entry.row, { ...pick(getRuntime(simUrl)), trial })
              : brokenRow(entry, trial);
            writeInstance(outDir, outcome);
            meta = metaFromOutcome(outcome);
          }
          task.meta.toolgauge = meta;
          await annotate(summaryLine(meta), meta.error ? 'error' : meta.correct ? 'correct' : 'wrong', {
            path: tracePath(outDir, entry.id, trial),
            contentType: 'application/json',
          });
          expect(meta).toBeCorrectToolhopAnswer();
        });
      }
    }
  });
}

let loaded: { key: string; value: Promise<LoadedDataset> } | undefined;

/** The dataset, parsed and validated once per worker (every part file of the run asks for the same one). */
function loadOnce(cfg: ReturnType<typeof readConfig>): Promise<LoadedDataset> {
  const key = JSON.stringify([cfg.toolhop.data, cfg.toolhop.revision, cfg.usesSimulator]);
  if (loaded?.key !== key) loaded = { key, value: resolveDataSource(cfg).then((src) => loadDatasetFile(src.path)) };
  return loaded.value;
}

/**
 * Deal the selected rows over the part files longest-first (most hops first), round-robin: every part gets a
 * similar mix, and within a part the long chains start first, so the concurrent tests finish together instead of
 * leaving a long straggler at the end of each file (longest-processing-time-first scheduling).
 */
export function dealToPart(selected: DatasetEntry[], part: number, parts: number): DatasetEntry[] {
  const hops = (e: DatasetEntry) => (e.ok ? hopCount(e.row) : 0);
  const order = selected.map((e, i) => ({ e, i })).sort((a, b) => hops(b.e) - hops(a.e) || a.i - b.i);
  return order.filter((_, k) => k % parts === part - 1).map((x) => x.e);
}

function pick(rt: ReturnType<typeof getRuntime>) {
  return { client: rt.client, sandbox: rt.sandbox(), cfg: rt.cfg };
}

function summaryLine(m: ToolhopMeta): string {
  const head = m.error ? `error: ${m.error}` : `${m.correct ? 'correct' : 'wrong'} (${m.rule ?? 'no rule matched'})`;
  return `${head} · gold '${m.gold}' · predicted '${m.predicted}' · ${m.turns} turns · ${m.tool_calls} tool calls (${m.tool_errors} errors)${m.forced_final ? ' · final answer forced' : ''}${m.resumed ? ' · resumed' : ''}`;
}

function brokenRow(entry: Extract<DatasetEntry, { ok: false }>, trial: number): ToolhopOutcome {
  const common = { id: entry.id, trial, hops: 0, domain: '', answer_type: '' };
  const error = `invalid row: ${entry.error}`;
  return {
    prediction: {
      ...common,
      question: '',
      gold_answer: '',
      predicted_answer: '',
      final_message: '',
      previous_tool_content: '',
      turns: 0,
      tool_calls: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      error,
      error_kind: 'invalid_row',
    },
    result: { ...common, correct: false, rule: null, predicted_answer: '', gold_answer: '', error },
    trace: {
      ...common,
      question: '',
      gold_answer: '',
      started_at: new Date().toISOString(),
      wall_ms: 0,
      forced_final: false,
      exhausted: false,
      messages: [],
      tool_executions: [],
      model_calls: [],
      error,
    },
  };
}
