import { join } from 'node:path';
import { z } from 'zod';
import { firstZodIssue } from '../core/errors.ts';
import { sha256, stableJsonStringify, stableStringify } from '../core/hash.ts';
import { appendJsonl, eachJsonl, readJsonl, streamLines } from '../core/jsonl.ts';
import { lstatOrNull, refuseLink } from '../core/nofollow.ts';
import { hasSecrets, redact } from '../core/redact.ts';
import { instanceKey } from './names.ts';
import { recordLines } from './records.ts';
import type { InstanceMetaBase } from './types.ts';

/**
 * The run journal, `instances.jsonl`: one meta per finished instance and trial, appended (and flushed) the moment
 * the instance's files are on disk. It is what `--resume` and filtered re-runs read back, and what `toolgauge
 * report` re-aggregates. A later line for the same key replaces an earlier one (a re-run instance).
 *
 * Each line carries a seal: the sha256 of the meta itself and of each record line the instance wrote (results.jsonl,
 * predictions.jsonl …). A resume or merge reads the journal through `verifiedJournal`, which refuses a line that fails
 * the suite's meta schema, that no longer matches its seal (edited), or whose record lines are gone or changed — a
 * summary is never built from a journal that disagrees with the results files.
 */
export const JOURNAL = 'instances.jsonl';

export interface Seal {
  /** sha256 of the meta (without `seal` and `resumed`) together with `records`, keys sorted. */
  meta: string;
  /** Record file → sha256 of the instance's line in it. */
  records: Record<string, string>;
}

const Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** What every meta holds, whatever its suite (InstanceMetaBase). */
export const MetaBase = z
  .object({
    suite: z.string(),
    id: z.string(),
    trial: z.number().int().min(0),
    error: z.string().nullable(),
    pass: z.boolean(),
    reason: z.string().nullable().optional(),
    order: z.number().optional(),
    trace: z.string().nullable().optional(),
    resumed: z.boolean().optional(),
    seal: z.object({ meta: Hex, records: z.record(z.string(), Hex) }).optional(),
  })
  .passthrough();

/** The digest of one JSON value as it is stored (redacted, keys sorted). */
export function valueDigest(value: unknown): string {
  // With no secret to redact, the stored text's value is sorted from the value itself (three digests per instance).
  if (!hasSecrets()) return sha256(stableJsonStringify(value));
  return sha256(stableStringify(JSON.parse(redact(JSON.stringify(value)))));
}

/**
 * The meta (without `seal` and `resumed`) and the digests of its record lines, hashed together: a line whose record
 * digests were emptied or swapped no longer matches, so the record files' check cannot be skipped that way.
 */
function metaDigest(meta: object, records: unknown): string {
  const { seal: _seal, resumed: _resumed, ...rest } = meta as { seal?: unknown; resumed?: unknown };
  return valueDigest({ meta: rest, records });
}

/** The meta with its seal, given the digests of the record lines written for it. */
export function sealMeta<M extends InstanceMetaBase>(meta: M, records: Record<string, string>): M & { seal: Seal } {
  return { ...meta, seal: { meta: metaDigest(meta, records), records } };
}

export function appendJournal(outDir: string, meta: InstanceMetaBase): void {
  appendJsonl(join(outDir, JOURNAL), meta, outDir);
}

function isMeta(x: unknown): x is InstanceMetaBase {
  const m = x as Partial<InstanceMetaBase> | null;
  return (
    !!m &&
    typeof m === 'object' &&
    typeof m.suite === 'string' &&
    typeof m.id === 'string' &&
    typeof m.trial === 'number'
  );
}

/** The latest meta per key, in first-seen order; torn or foreign lines are skipped (the run's own bookkeeping). */
export function readJournal<M extends InstanceMetaBase = InstanceMetaBase>(
  outDir: string,
  suite?: string,
): Map<string, M> {
  const out = new Map<string, M>();
  for (const raw of readJsonl(join(outDir, JOURNAL), undefined, outDir)) {
    if (!isMeta(raw) || (suite && raw.suite !== suite)) continue;
    out.set(instanceKey(raw.id, raw.trial), raw as M);
  }
  return out;
}

/**
 * The latest meta per key of `suite` in the journal for which `inRun(key)` is false: the finished instances a resume
 * of fewer instances leaves outside its run. Streamed and filtered as read, so a resume that covers the whole journal
 * (the usual case) holds none of it.
 */
export function journalOutside(outDir: string, suite: string, inRun: (key: string) => boolean): InstanceMetaBase[] {
  const out = new Map<string, InstanceMetaBase>();
  eachJsonl(
    join(outDir, JOURNAL),
    (raw) => {
      if (!isMeta(raw) || raw.suite !== suite) return;
      const key = instanceKey(raw.id, raw.trial);
      if (!inRun(key)) out.set(key, raw);
    },
    undefined,
    outDir,
  );
  return [...out.values()];
}

export class JournalRefused extends Error {
  override name = 'JournalRefused';
}

/**
 * The journal of `suite` in `outDir`, checked line by line before a resume or merge trusts it: every line of the
 * suite must pass `schema` (the suite's meta schema, else MetaBase) and match its seal, and the latest line of each
 * instance finished without error must find its sealed line in each record file. The first problem is thrown as a
 * JournalRefused naming the file, the line and the field. A torn line (a killed run's last write) is skipped: its
 * instance runs again.
 */
export function verifiedJournal<M extends InstanceMetaBase>(
  outDir: string,
  suite: string,
  schema: z.ZodType = MetaBase,
  /** `toolgauge report` on a directory from an older toolgauge: lines without a seal are kept (and counted) unchecked. */
  o: { unsealed?: (count: number) => void } = {},
): Map<string, M & { seal: Seal }> {
  const path = join(outDir, JOURNAL);
  refuseLink(path);
  const out = new Map<string, { meta: M & { seal: Seal }; line: number }>();
  if (!lstatOrNull(path)) return new Map();
  let unsealed = 0;
  // Streamed, bounded and only a regular file inside outDir (a FIFO or a link on the way is refused, never waited on).
  streamLines(
    path,
    ({ text, lineNo, tooLong }) => {
      const i = lineNo - 1;
      if (tooLong || !text.trim()) return; // a line too long to be a meta is torn: its instance runs again
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        return;
      }
      const where = `${path} line ${i + 1}`;
      if (!raw || typeof raw !== 'object' || Array.isArray(raw))
        throw new JournalRefused(`${where}: not an instance's meta`);
      if ((raw as { suite?: unknown }).suite !== suite && typeof (raw as { suite?: unknown }).suite === 'string')
        return;
      // Sealed or not, a line must hold what the aggregation reads.
      for (const s of [MetaBase, schema]) {
        const parsed = s.safeParse(raw);
        if (!parsed.success) {
          const { field, message } = firstZodIssue(parsed.error);
          throw new JournalRefused(`${where}: field ${field || '(line)'}: ${message}`);
        }
      }
      if (o.unsealed && !(raw as { seal?: unknown }).seal) {
        unsealed++;
        out.set(instanceKey((raw as M).id, (raw as M).trial), { meta: raw as M & { seal: Seal }, line: i + 1 });
        return;
      }
      const meta = raw as M & { seal?: Seal };
      const which = `${where} (id ${JSON.stringify(meta.id)}${meta.trial ? `, trial ${meta.trial}` : ''})`;
      if (!meta.seal)
        throw new JournalRefused(
          `${which}: has no seal, so it cannot be checked against the results files (written by an older toolgauge, or edited)`,
        );
      if (meta.seal.meta !== metaDigest(meta, meta.seal.records))
        throw new JournalRefused(`${which}: does not match its seal: the line was edited after the run wrote it`);
      out.set(instanceKey(meta.id, meta.trial), { meta: meta as M & { seal: Seal }, line: i + 1 });
    },
    { root: outDir },
  );
  if (unsealed) o.unsealed?.(unsealed);
  // The latest line of each instance finished without error must find its record lines as they were written.
  const files = new Map<string, Map<string, Set<string>>>();
  for (const { meta, line } of out.values()) {
    if (meta.error || !meta.seal) continue;
    for (const [file, digest] of Object.entries(meta.seal.records)) {
      if (!files.has(file)) files.set(file, digestsByKey(outDir, file));
      if (!files.get(file)!.get(instanceKey(meta.id, meta.trial))?.has(digest)) {
        throw new JournalRefused(
          `${join(outDir, file)}: no line for id ${JSON.stringify(meta.id)}${meta.trial ? ` (trial ${meta.trial})` : ''} matches ${path} line ${line}: the results file was edited or lost lines`,
        );
      }
    }
  }
  return new Map([...out].map(([k, v]) => [k, v.meta]));
}

function digestsByKey(outDir: string, file: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const { key, line } of recordLines(join(outDir, file), outDir)) {
    const set = out.get(key) ?? out.set(key, new Set()).get(key)!;
    set.add(valueDigest(line));
  }
  return out;
}
