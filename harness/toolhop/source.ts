import type { RunConfig } from '../core/config.ts';
import { UsageError } from '../core/errors.ts';
import { BUNDLED_SAMPLE } from './dataset.ts';
import type { ToolhopSettings } from './settings.ts';
import { ensureHfFile, HF_FILE, HF_REPO } from '../hub/hf.ts';

export interface DataSource {
  kind: 'file' | 'hf' | 'bundled';
  path: string;
  /** For hf: repo@revision (commit). */
  origin: string;
}

/**
 * Where the rows come from: `--data FILE`; `--data hf[:REVISION]` for the Hugging Face dataset; by default the
 * Hugging Face dataset for a real endpoint and the bundled sample for the simulator (so a fresh offline machine
 * can run end to end).
 */
export async function resolveDataSource(
  run: RunConfig,
  settings: Pick<ToolhopSettings, 'data' | 'revision'>,
): Promise<DataSource> {
  const spec = settings.data ?? (run.usesSimulator ? 'bundled' : 'hf');
  if (spec === 'bundled') return { kind: 'bundled', path: BUNDLED_SAMPLE, origin: 'cases/toolhop/sample.json' };
  if (spec === 'hf' || spec.startsWith('hf:')) {
    const revision = spec.startsWith('hf:') ? spec.slice(3) : settings.revision;
    const f = await ensureHfFile({
      revision,
      hfHome: run.hf.home,
      token: run.hf.token,
      endpoint: run.hf.endpoint,
      timeoutMs: run.hf.timeoutMs,
      onProgress: (got, total) =>
        process.stderr.write(
          `toolgauge: downloading ${HF_REPO}/${HF_FILE}: ${mib(got)}${total ? ` of ${mib(total)}` : ''} MiB\n`,
        ),
    }).catch((err: unknown) => {
      // Offline, a wrong revision, a gated dataset: the user's to fix with --data or --revision, so one line.
      throw new UsageError(`--data ${spec}: ${(err as Error).message}`);
    });
    return { kind: 'hf', path: f.path, origin: `${HF_REPO}/${HF_FILE}@${revision} (commit ${f.commit})` };
  }
  return { kind: 'file', path: spec, origin: spec };
}

const mib = (n: number) => (n / 2 ** 20).toFixed(1);
