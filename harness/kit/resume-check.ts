import { join } from 'node:path';
import type { RunConfig } from '../core/config.ts';
import { refuseLink } from '../core/nofollow.ts';
import {
  fingerprintDiff,
  runFingerprint,
  RUN_FILE,
  RunFileInvalid,
  storedFingerprint,
  type Fingerprint,
} from './fingerprint.ts';
import { JOURNAL, readJournal, verifiedJournal, type Seal } from './journal.ts';
import { acquireDirLock, releaseDirLock } from './lock.ts';
import { KIT_OUTPUTS, MARKER, type OutDirMode } from './outdir.ts';
import type { AnySuite, DatasetInfo, InstanceMetaBase } from './types.ts';

/** A resume or `-t` re-run that would mix another run's instances (or an edited journal) into this one's summary. */
/**
 * The errors by which a run is refused its output directory (in use, another run's fingerprint, a journal that does
 * not check out, a link in an output's place, a FIFO, device or folder where a file is expected): one line for the user, exit 2.
 */
const DIR_REFUSALS = new Set(['DirLocked', 'ResumeRefused', 'JournalRefused', 'LinkRefused', 'FileRefused']);

export function isDirRefusal(errorName: string | undefined): boolean {
  return DIR_REFUSALS.has(errorName ?? '');
}

export class ResumeRefused extends Error {
  override name = 'ResumeRefused';
}

const modeName = (mode: OutDirMode) => (mode === 'resume' ? '--resume' : 'a -t re-run');

/**
 * What a resume or merge checks before it trusts an output directory, in this order: no file or folder the run writes
 * is a link (core/nofollow.ts); a directory with no fingerprint of this suite holds no other suite's finished
 * instances; the stored fingerprint equals this run's (fingerprint.ts), naming the first field that differs; the
 * journal passes verifiedJournal (schema, seal, record files). Returns the verified journal.
 */
export function checkResumable<M extends InstanceMetaBase>(
  dir: string,
  def: AnySuite,
  mode: OutDirMode,
  current: Fingerprint,
): Map<string, M & { seal: Seal }> {
  for (const name of new Set([...KIT_OUTPUTS, ...def.outputs, ...(def.recordFiles ?? []), MARKER]))
    refuseLink(join(dir, name));
  const stored = storedOrRefused(dir, def.name, mode);
  const other = stored ? undefined : otherSuites(dir, def.name)[0];
  if (other) {
    // Its journal and summary would be replaced by this suite's at the end: the other run's finished work is lost.
    const [suite, count] = other;
    throw new ResumeRefused(
      `${modeName(mode)}: ${dir} holds a ${suite} run (${count} finished instance${count === 1 ? '' : 's'} in ${JOURNAL}), not a ${def.name} run; use another --out-dir for ${def.name}`,
    );
  }
  if (stored) {
    const d = fingerprintDiff(stored, current);
    if (d)
      throw new ResumeRefused(
        `${modeName(mode)}: ${dir} holds a run with ${d.field} ${d.stored}, but this run has ${d.field} ${d.current}; use another --out-dir, or run without ${mode === 'resume' ? '--resume' : '-t'} to start afresh`,
      );
  } else if (readJournal(dir, def.name).size) {
    throw new ResumeRefused(
      `${modeName(mode)}: ${join(dir, JOURNAL)} has finished instances but ${join(dir, RUN_FILE)} holds no fingerprint for ${def.name}, so nothing says they come from this model and dataset; run without ${mode === 'resume' ? '--resume' : '-t'} to start afresh`,
    );
  }
  return verifiedJournal<M>(dir, def.name, def.metaSchema);
}

/** The stored fingerprint; a run.json that cannot be read refuses the resume (one line), as another run's would. */
function storedOrRefused(dir: string, suite: string, mode: OutDirMode): Fingerprint | null {
  try {
    return storedFingerprint(dir, suite);
  } catch (err) {
    if (!(err instanceof RunFileInvalid)) throw err;
    throw new ResumeRefused(
      `${modeName(mode)}: ${err.message}, so nothing says which run ${dir} holds; run without ${mode === 'resume' ? '--resume' : '-t'} to start afresh`,
    );
  }
}

/** The suites other than `suite` with finished instances in the journal of `dir`, with their counts. */
function otherSuites(dir: string, suite: string): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const m of readJournal(dir).values()) if (m.suite !== suite) counts.set(m.suite, (counts.get(m.suite) ?? 0) + 1);
  return [...counts];
}

/**
 * The start of a run in its main process (the CLI): take the output directory's lock for the run, and for a resume
 * or merge, check the directory (checkResumable) with the dataset loaded as the workers will load it. Returns the
 * function that gives the directory back; on a refusal the lock is given back before the error is thrown.
 */
export async function claimOutDir(
  def: AnySuite,
  run: RunConfig,
  settings: unknown,
  o: { dir: string; runId: string; mode: OutDirMode },
): Promise<() => void> {
  acquireDirLock(o.dir, o.runId);
  const release = () => releaseDirLock(o.dir, o.runId);
  try {
    if (o.mode !== 'fresh') {
      const loaded = await def.load(run, settings);
      checkResumable(
        o.dir,
        def,
        o.mode,
        runFingerprint(def, run, settings, (loaded.dataset as DatasetInfo | null) ?? null),
      );
    }
  } catch (err) {
    release();
    throw err;
  }
  return release;
}
