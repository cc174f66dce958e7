import { setFlagsFromString } from 'node:v8';
import { afterAll, describe, expect, test } from 'vitest';
import { setLateV8Flags } from '../core/late-v8-flags.ts';
import { redactCut } from '../core/redact.ts';
import { blobRunOf, type BlobRun } from '../kit/blob-run.ts';
import { carryTrace } from '../kit/shard-traces.ts';
import { runFingerprint, type Fingerprint } from '../kit/fingerprint.ts';
import { settingsOf, type RunPlan } from '../kit/plan.ts';
import { dealToPart, partsInUse } from '../kit/deal.ts';
import { checkGate } from '../kit/gate.ts';
import { printableId } from '../kit/names.ts';
import { runtimeFor } from '../kit/runtime.ts';
import { SuiteSession } from '../kit/session.ts';
import type { InstanceMetaBase, Loaded, SuiteDefinition } from '../kit/types.ts';
import { runPlan } from './context.ts';
import './matchers.ts';
import type { EvalPart } from './eval-parts.ts';
import { loadSetFn, registerWithoutStacks, releaseTestFn } from './lean-tests.ts';

/** Annotations and UI transcripts are capped: a verbose model must not bloat reports or blobs. */
const SUMMARY_CAP = 300;

/**
 * Vitest keeps every test's meta and annotations until the run ends, in the worker and again in its main process,
 * and the transcript is in both (four copies in all): a run's transcripts share one budget, so a run of hundreds
 * of cases holds all of each, one of thousands a share (the whole transcript is in the instance's trace file, which
 * the cut names), and one of tens of thousands, where a share would be too short to read, none. The budget is of
 * bytes as V8 stores a string: one a character, two when any character is above U+00FF (a transcript holding one
 * `…` takes twice the memory of the same text in ASCII), so a share is halved for such a transcript and the cut's
 * marker is ASCII.
 */
export const TRANSCRIPT_BUDGET = 4 * 1024 * 1024;
export const TRANSCRIPT_CAP = 20_000;
export const TRANSCRIPT_FLOOR = 200;

/** The bytes of each test's transcript kept in Vitest's state, for a run of `tests` tests (0: none). */
export function transcriptCap(tests: number): number {
  const share = Math.min(TRANSCRIPT_CAP, Math.floor(TRANSCRIPT_BUDGET / Math.max(1, tests)));
  return share < TRANSCRIPT_FLOOR ? 0 : share;
}

/** What V8 stores a character of `s` in: two bytes when any character is above U+00FF, else one. */
export function bytesPerChar(s: string): 1 | 2 {
  return /[\u0100-\uffff]/.test(s) ? 2 : 1;
}

/** A transcript cut to `bytes` of V8's storage (transcriptCap), naming the file that holds the whole of it. */
export function capTranscript(s: string, bytes: number, wholeIn?: string | null): string {
  return cap(s, Math.floor(bytes / bytesPerChar(s)), wholeIn);
}

// One load and one session per suite and settings in a worker: a built-in suite's part files share them (the parts
// of an eval file, `--parts`, do not: each is dropped when it ends).
const loads = new Map<string, Promise<Loaded<{ id: string }>>>();
const sessions = new Map<string, SuiteSession<{ id: string }, InstanceMetaBase, unknown>>();

/**
 * Turn a suite into Vitest tests: this part's share of the instances (`part` of `parts`), one concurrent test per
 * instance and trial, named by the suite (`toolhop › 17 › hops=4`, plus ` › trial=k` with trials) so `-t` filters
 * work. The test runs the instance through the kit's session (resume, files, journal), puts the meta in
 * `task.meta.toolgauge`, annotates a one-line summary with the readable transcript, and asserts the verdict.
 */
export function defineSuiteTests<I extends { id: string }, M extends InstanceMetaBase, S>(
  def: SuiteDefinition<I, M, S>,
  opts: {
    part?: number;
    parts?: number;
    settings?: S;
    kit?: RunPlan;
    /** This suite's trials, in place of the run's (a describeEval's `trials`). */
    trials?: number;
    /** One test's time limit in ms, in place of the run's (a describeEval's `timeout`). */
    timeout?: number;
    /** Vitest's `describe.skip` / `describe.only` for the block; a skipped block loads nothing. */
    mode?: 'skip' | 'only';
    /** This module is one part of its eval file (`toolgauge eval --parts`, eval-parts.ts): the part's share of the cases. */
    slice?: EvalPart;
  } = {},
): Promise<void> {
  const planned = opts.kit ?? runPlan();
  // The suite's own trials run through the session and the tests; the block's recorded run (blobs) stays the run's.
  const kc = opts.trials === undefined ? planned : { ...planned, run: { ...planned.run, trials: opts.trials } };
  const part = opts.part ?? 1;
  const parts = opts.parts ?? 1;
  const slice = opts.slice;
  const title =
    parts > 1
      ? `${def.name} (part ${part}/${parts})`
      : slice
        ? `${def.name} (part ${slice.part}/${slice.parts})`
        : def.name;
  // Filled in once the instances are loaded; Vitest keeps this object as the block's meta.
  // `run` is what a shard's blob report carries of the run (harness/kit/blob-run.ts).
  const ident = {
    suite: def.name,
    title: def.title,
    dataset: null as Loaded<I>['dataset'],
    outDir: '',
    run: undefined as BlobRun | undefined,
    fingerprint: undefined as Fingerprint | undefined,
    // The dataset's size: a suite with instances none of whose tests ran (.only elsewhere) is not finalized.
    instances: 0,
    // The header's trials when the suite sets its own.
    ...(opts.trials !== undefined ? { trials: opts.trials } : {}),
  };
  if (opts.mode === 'skip') {
    // Nothing loaded, no session, no output: the block and its placeholder show as skipped.
    describe.skip(title, () => test.skip(`${def.name} › (skipped)`, () => {}));
    return Promise.resolve();
  }
  const block = opts.mode === 'only' ? describe.only : describe;
  let done!: () => void;
  let failed!: (e: unknown) => void;
  const collected = new Promise<void>((res, rej) => ((done = res), (failed = rej)));
  // The block registers at once (so `describeEval(…)` works without `await`); its body loads the instances.
  block(title, { meta: { toolgaugeSuite: ident } }, async () => {
    try {
      const settings = opts.settings ?? settingsOf(kc, def);
      // A gate that names a metric this suite never reports fails here, before any instance runs.
      if (kc.run.gate) checkGate(kc.run.gate, def.metricNames(settings));
      // The suite's own V8 flags before its cases load, which may render (probe checks each template there). Node's
      // fetch, which the model client's first request loads, is loaded first, so that it still compiles with Node's
      // code cache.
      if (def.v8Flags?.length) {
        void globalThis.Headers;
        for (const f of def.v8Flags) setFlagsFromString(f);
      }
      // Each part of an eval file is a module of its own (its data, tools and tool sources, closed when the part
      // ends): it loads and runs on its own, and what it kept is dropped with it. The output directory is prepared
      // once per run, so the parts write one journal, as one run does.
      const key = `${def.name}\u0000${JSON.stringify(settings)}\u0000${kc.runId}${slice ? `\u0000part ${slice.part}` : ''}`;
      if (!loads.has(key))
        loads.set(key, Promise.resolve(def.load(kc.run, settings)) as Promise<Loaded<{ id: string }>>);
      if (slice)
        afterAll(() => {
          loads.delete(key);
          sessions.delete(key);
        });
      const loaded = (await loads.get(key)!) as Loaded<I>;
      // The eval worker's old-generation growth (harness/vitest/eval-worker-start.cjs) is set here, once the suite's
      // modules and cases are loaded and before its tests are collected: set after the first test, a worker of 2,000
      // cases peaked at about 220 MiB instead of 145. Node's fetch, which the model client's first request loads,
      // is loaded first, so that it still compiles with Node's code cache.
      void globalThis.Headers;
      setLateV8Flags();
      const runTests = loaded.instances.length * kc.run.trials;
      // Unsharded, a small run stays in the first part file and a large one is dealt over them (kit/deal.ts).
      const dealtOver = partsInUse({ tests: runTests, parts, sharded: kc.sharded !== false });
      const ofPart = def.partOf
        ? loaded.instances.filter((i) => def.partOf!(i) === part)
        : dealToPart(loaded.instances, part, dealtOver, def.weight ? (i) => def.weight!(i) : undefined);
      const mine = slice ? dealToPart(ofPart, slice.part, slice.parts) : ofPart;
      const runtime = runtimeFor(kc.run, kc.simUrl, kc.sandboxSocket);
      if (!sessions.has(key))
        sessions.set(key, new SuiteSession(def, kc, settings, runtime, loaded.instances, loaded.dataset) as never);
      const session = sessions.get(key)! as unknown as SuiteSession<I, M, S>;
      ident.dataset = loaded.dataset;
      ident.instances = loaded.instances.length;
      ident.outDir = session.outDir;
      ident.run = blobRunOf(planned.run, settings);
      // A blob carries the run's fingerprint too: the merge writes it as run.json, so the merged folder can be resumed.
      if (kc.carryTraces) ident.fingerprint = runFingerprint(def, kc.run, settings, loaded.dataset);
      if (mine.length) def.warm?.(session.warmContext(), mine);
      // What the suite started for its instances (an eval's MCP servers) stops with this worker's block.
      if (def.close) afterAll(() => def.close!());
      // Vitest fails a file without tests; a small selection can leave a part empty.
      if (!mine.length)
        test.skip(`${def.name} › (no instances in part ${slice ? `${slice.part}/${slice.parts}` : `${part}/${parts}`}${kc.sharded === false && parts > dealtOver ? `: unsharded, all run in part${dealtOver > 1 ? `s 1-${dealtOver}` : ' 1'}` : ''})`, () => {});
      // The parts of an eval file share its budget, as do the part files of an unsharded run (one worker runs them all).
      const budgetTests = slice
        ? ofPart.length * kc.run.trials
        : kc.sharded === false
          ? runTests
          : mine.length * kc.run.trials;
      const cutAt = transcriptCap(budgetTests);
      // `test.concurrent` is a getter that builds a new chainable (a dozen closures and getters) on every read, and
      // each test keeps the one it was made with: read once, it is shared by all of the block's tests.
      const concurrent = test.concurrent;
      await loadSetFn();
      registerWithoutStacks(() => {
        for (const instance of mine) {
          for (let trial = 0; trial < kc.run.trials; trial++) {
            const name = `${printableId(def.testName(instance))}${kc.run.trials > 1 ? ` › trial=${trial}` : ''}`;
            // Vitest copies the block's meta into each test's: the block's identity stays on the block (the reporter
            // reads it there), and the transcript's key comes first, so the UI's "Test Meta" shows it above the JSON.
            const meta = {
              transcript: undefined,
              toolgaugeSuite: undefined,
              toolgaugeInstance: { id: instance.id, trial },
            };
            const options = opts.timeout !== undefined ? { meta, timeout: opts.timeout } : { meta };
            concurrent(name, options, async ({ task, annotate }) => {
              releaseTestFn(task);
              const r = await session.runOne(instance, trial);
              task.meta.toolgauge = r.meta;
              // The Vitest UI shows a test's meta as text (its report's "Test Meta"): the transcript, readable there.
              const transcript =
                r.transcript && cutAt > 0 ? capTranscript(r.transcript, cutAt, r.meta.trace) : undefined;
              if (transcript) task.meta.transcript = transcript;
              if (kc.carryTraces) task.meta.toolgaugeTrace = carryTrace(session.outDir, r.meta.trace ?? undefined);
              await annotate(
                cap(r.verdict.summary, SUMMARY_CAP),
                r.meta.error ? 'error' : r.meta.pass ? 'pass' : 'fail',
                // A string body is base64 unless it says otherwise: without utf-8 the UI's Download link is garbage.
                transcript ? { body: transcript, contentType: 'text/plain', bodyEncoding: 'utf-8' } : undefined,
              );
              expect(r.meta).toPassInstance(r.verdict);
            });
          }
        }
      });
      done();
    } catch (err) {
      failed(err);
      throw err;
    }
  });
  // Awaiting is optional; a caller that awaits sees collection errors, others see them as the block's error.
  collected.catch(() => undefined);
  return collected;
}

/**
 * Redacted before the cut (core/redact.ts); the marker names the file that holds the whole text, if any. The marker
 * is ASCII, so that a cut Latin-1 text stays at one byte a character in V8 (transcriptCap).
 */
export function cap(s: string, n: number, wholeIn?: string | null): string {
  return redactCut(s, n, (length) => `... [${length - n} more characters${wholeIn ? `; whole in ${wholeIn}` : ''}]`);
}
