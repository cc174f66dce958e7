import { join } from 'node:path';
import { capStrings, capText } from '../core/cap.ts';
import { writeFileAtomic } from '../core/jsonl.ts';
import { redact } from '../core/redact.ts';
import { samplingOf, type RunPlan } from './plan.ts';
import { runFingerprint, storedFingerprint, writeFingerprint } from './fingerprint.ts';
import { appendJournal, sealMeta, valueDigest } from './journal.ts';
import { acquireDirLock } from './lock.ts';
import { instanceKey, tracePath } from './names.ts';
import { prepareOutDir, type OutDirMode } from './outdir.ts';
import { appendRecord, rewriteRecordFiles } from './records.ts';
import { checkResumable } from './resume-check.ts';
import type { Runtime } from './runtime.ts';
import { trialSampling, type SamplingPlan } from './sampling.ts';
import type { DatasetInfo, Finished, InstanceMetaBase, RunContext, SuiteDefinition, Verdict } from './types.ts';

export interface InstanceResult<M extends InstanceMetaBase> {
  meta: M;
  verdict: Verdict;
  transcript?: string;
}

/** One instance's output, bounded and ready to write. */
interface Stored<M> {
  files: Array<[string, string]>;
  records: Array<[string, unknown]>;
  meta: M;
}

/**
 * One suite's run in one worker: everything between "this instance should run" and "its meta is on disk" that
 * every suite shares. The output directory is prepared when the first instance runs (never at collection);
 * finished instances are skipped on `--resume`; each run's files are written before its record lines, and the
 * journal line last, so an instance counts as finished only once everything about it is on disk. An exception from
 * the suite becomes an errored instance — it stays in the denominator as an error, never vanishes. Before anything is
 * written the run joins (or takes) the directory's lock, and a resume or merge checks the directory first
 * (resume-check.ts: links, fingerprint, journal). Nothing is written through a link.
 */
export class SuiteSession<I extends { id: string }, M extends InstanceMetaBase, S> {
  readonly outDir: string;
  readonly mode: OutDirMode;
  private finished: Map<string, M> | undefined;
  private readonly order: Map<string, number>;
  /** What every request of this run is asked with: each trial's values come from it, as does the header's record. */
  readonly samplingPlan: SamplingPlan;

  constructor(
    readonly def: SuiteDefinition<I, M, S>,
    readonly kc: RunPlan,
    readonly settings: S,
    readonly runtime: Runtime,
    instances: readonly I[],
    private readonly dataset: DatasetInfo | null = null,
  ) {
    this.outDir = def.outDir(kc.run, settings);
    this.mode = kc.run.resume ? 'resume' : kc.filter ? 'merge' : 'fresh';
    this.order = new Map(instances.map((inst, i) => [inst.id, i]));
    this.samplingPlan = samplingOf(kc, def, settings);
    // Two instances with one id would merge in the journal, the records and the summary: the loader must rename.
    if (this.order.size !== instances.length) {
      const dup = instances.find((inst, i) => this.order.get(inst.id) !== i)!;
      throw new Error(
        `suite ${def.name}: two instances share the id '${dup.id}' (its loader must give every row a distinct id)`,
      );
    }
  }

  private context(trial: number): RunContext<S> {
    return {
      run: this.kc.run,
      settings: this.settings,
      trial,
      outDir: this.outDir,
      client: () => this.runtime.client(),
      sampling: trialSampling(this.samplingPlan, trial),
      sandbox: () => this.runtime.sandbox(),
      simUrl: this.kc.simUrl,
      tracePath,
    };
  }

  /** The context without a trial, for warming up before the first instance. */
  warmContext(): Omit<RunContext<S>, 'trial' | 'sampling'> {
    const { trial: _trial, sampling: _sampling, ...rest } = this.context(0);
    return rest;
  }

  private prepare(): Map<string, M> {
    if (this.finished) return this.finished;
    const records = this.def.recordFiles ?? [];
    acquireDirLock(this.outDir, this.kc.runId, this.kc.ownerPid ?? process.pid);
    const fp = runFingerprint(this.def, this.kc.run, this.settings, this.dataset);
    const journal = this.mode === 'fresh' ? new Map() : checkResumable<M>(this.outDir, this.def, this.mode, fp);
    prepareOutDir(this.outDir, this.kc.runId, this.mode, this.def.outputs, (dir) => {
      if (this.mode !== 'resume') return;
      // Keep exactly one record line per instance finished without a harness error — the line its journal entry
      // sealed (a killed run can leave a torn line, or a prediction without its result); errored instances run again.
      rewriteRecordFiles(dir, records, (k, line, file) => {
        const m = journal.get(k);
        const sealed = m?.seal.records[file];
        return !!m && !m.error && (sealed === undefined || valueDigest(line) === sealed);
      });
    });
    if (this.mode === 'fresh' || !storedFingerprint(this.outDir, this.def.name))
      writeFingerprint(this.outDir, this.def.name, this.kc.runId, fp);
    this.finished = this.mode === 'resume' ? new Map([...journal].filter(([, m]) => !m.error)) : new Map<string, M>();
    return this.finished;
  }

  async runOne(instance: I, trial: number): Promise<InstanceResult<M>> {
    const finished = this.prepare();
    const prev = finished.get(instanceKey(instance.id, trial));
    if (prev) {
      const meta = { ...prev, resumed: true };
      return { meta, verdict: this.def.verdict(meta) };
    }
    let done: Finished<M>;
    try {
      done = await this.def.run(instance, this.context(trial));
    } catch (err) {
      done = {
        meta: this.def.failed(instance, trial, thrown(err)),
      };
    }
    const order = this.order.get(instance.id) ?? 0;
    let stored: Stored<M>;
    try {
      stored = this.bound(done, { ...done.meta, order });
    } catch (err) {
      // What the run returned cannot be stored (a value nested too deep for any walker): the instance is an
      // error, with the reason, and stays in the denominator.
      done = {
        meta: this.def.failed(instance, trial, thrown(err)),
      };
      stored = this.bound(done, { ...done.meta, order });
    }
    const meta = this.write(stored);
    return {
      meta,
      verdict: this.def.verdict(meta),
      ...(done.transcript ? { transcript: redact(done.transcript) } : {}),
    };
  }

  /**
   * Everything written is redacted and bounded: strings longer than the run's limit are cut with a marker
   * (core/cap.ts). All of it is bounded before anything is written, so a value that cannot be stored leaves no
   * partial lines behind.
   */
  private bound(done: Finished<M>, meta: M): Stored<M> {
    const max = this.kc.run.maxStoredChars;
    return {
      files: Object.entries(done.files ?? {}).map(([path, content]) => [
        path,
        typeof content === 'string' ? capText(content, max * 10) : JSON.stringify(capStrings(content, max), null, 1),
      ]),
      records: Object.entries(done.records ?? {}).map(([file, line]) => [file, capStrings(line, max)]),
      meta: capStrings(meta, max),
    };
  }

  /** Files first, then record lines, then the journal line sealed with the digests of the record lines. */
  private write(stored: Stored<M>): M {
    for (const [path, text] of stored.files) writeFileAtomic(join(this.outDir, path), text, this.outDir);
    const digests: Record<string, string> = {};
    for (const [file, line] of stored.records) {
      appendRecord(this.outDir, file, line);
      digests[file] = valueDigest(line);
    }
    const meta = sealMeta(stored.meta, digests);
    appendJournal(this.outDir, meta);
    return meta;
  }
}

/**
 * What an instance that threw stores as its error: the bare reason, as every suite stores an endpoint's failure.
 * Where it is shown (a verdict's message, report.md, the terminal) says "harness error" once.
 */
function thrown(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
