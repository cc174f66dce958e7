import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const HF_REPO = 'bytedance-research/ToolHop';
export const HF_FILE = 'data/ToolHop.json';

export interface HfOptions {
  repo?: string;
  file?: string;
  revision: string;
  /** HF_HOME; default `$XDG_CACHE_HOME/huggingface` or `~/.cache/huggingface`, as huggingface_hub does. */
  hfHome?: string;
  token?: string;
  /** HF_ENDPOINT; tests point it at a loopback server that imitates the hub. */
  endpoint: string;
  fetchImpl?: typeof fetch;
  /** The whole download; default 300 s. */
  timeoutMs?: number;
  /** Give up when no byte arrives for this long (a hung server); default 30 s. */
  stallMs?: number;
  /** Called as bytes arrive (at most a few times a second), so a long download is never silent. */
  onProgress?(received: number, total: number | null): void;
  /** Throws when the body is not what the file should hold; default: the body is one JSON document. */
  validate?: (body: string) => void;
}

export interface HfFile {
  path: string;
  commit: string;
  downloaded: boolean;
}

export function defaultHfHome(env: NodeJS.ProcessEnv | Record<string, string | undefined>): string {
  return env.HF_HOME ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'huggingface');
}

/**
 * Download a dataset file once into the Hugging Face hub cache layout
 * (`hub/datasets--owner--name/{refs/<revision>, snapshots/<commit>/<file>}`), so huggingface_hub and toolgauge
 * share it; later calls use the cache without the network.
 */
export async function ensureHfFile(opts: HfOptions): Promise<HfFile> {
  const repo = opts.repo ?? HF_REPO;
  const file = opts.file ?? HF_FILE;
  // The library reads no environment: a run's HF_HOME (or XDG_CACHE_HOME) arrives as opts.hfHome.
  const root = join(opts.hfHome ?? defaultHfHome({}), 'hub', `datasets--${repo.replace('/', '--')}`);
  const refPath = join(root, 'refs', opts.revision);
  const isCommit = /^[0-9a-f]{40}$/.test(opts.revision);
  const knownCommit = isCommit ? opts.revision : existsSync(refPath) ? readFileSync(refPath, 'utf8').trim() : undefined;
  if (knownCommit) {
    const cached = join(root, 'snapshots', knownCommit, file);
    if (existsSync(cached)) return { path: cached, commit: knownCommit, downloaded: false };
  }

  const url = `${opts.endpoint.replace(/\/$/, '')}/datasets/${repo}/resolve/${encodeURIComponent(opts.revision)}/${file}`;
  const doFetch = opts.fetchImpl ?? fetch;
  const ctl = new AbortController();
  const timeoutMs = opts.timeoutMs ?? 300_000;
  const stallMs = opts.stallMs ?? 30_000;
  let why = '';
  const abort = (reason: string) => {
    why = reason;
    ctl.abort(new Error(reason));
  };
  const overall = setTimeout(() => abort(`no complete download within ${secs(timeoutMs)} s`), timeoutMs);
  let stall = setTimeout(() => abort(`no answer for ${secs(stallMs)} s`), stallMs);
  const alive = () => {
    clearTimeout(stall);
    stall = setTimeout(() => abort(`no data for ${secs(stallMs)} s`), stallMs);
  };
  const fail = (err: unknown): never => {
    throw new Error(
      `could not download ${repo}/${file}@${opts.revision} from ${opts.endpoint}: ${why || (err as Error).message}. Offline? Pass --data FILE.`,
    );
  };
  let body: Buffer;
  let res: Response;
  try {
    try {
      res = await doFetch(url, {
        headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
        signal: ctl.signal,
        redirect: 'follow',
      });
    } catch (err) {
      return fail(err);
    }
    if (!res.ok) {
      const hint = res.status === 401 || res.status === 403 ? ' (set HF_TOKEN if the dataset is gated)' : '';
      throw new Error(`could not download ${repo}/${file}@${opts.revision}: HTTP ${res.status}${hint}`);
    }
    alive();
    const total = Number(res.headers.get('content-length') ?? NaN);
    const chunks: Buffer[] = [];
    let received = 0;
    let reported = 0;
    try {
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        alive();
        chunks.push(Buffer.from(value));
        received += value.byteLength;
        if (opts.onProgress && received - reported >= 256 * 1024) {
          reported = received;
          opts.onProgress(received, Number.isFinite(total) ? total : null);
        }
      }
    } catch (err) {
      return fail(err);
    }
    opts.onProgress?.(received, Number.isFinite(total) ? total : null);
    body = Buffer.concat(chunks);
  } finally {
    clearTimeout(overall);
    clearTimeout(stall);
  }
  try {
    (opts.validate ?? ((text: string) => void JSON.parse(text)))(body.toString('utf8'));
  } catch {
    throw new Error(`downloaded ${repo}/${file}@${opts.revision} is not valid JSON (${body.length} bytes); not cached`);
  }
  const commit = res.headers.get('x-repo-commit') ?? (isCommit ? opts.revision : `unknown-${opts.revision}`);
  const target = join(root, 'snapshots', commit, file);
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.incomplete`;
  writeFileSync(tmp, body);
  renameSync(tmp, target);
  if (!isCommit) {
    mkdirSync(dirname(refPath), { recursive: true });
    writeFileSync(refPath, commit);
  }
  return { path: target, commit, downloaded: true };
}

const secs = (ms: number) => Math.round(ms / 100) / 10;
