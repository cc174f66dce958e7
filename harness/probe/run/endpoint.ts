/**
 * What an endpoint says about itself, for the reproducibility header, `--server auto` and the quantization guard:
 * the server kind and version, the model revision, the chat template's hash and the tokenizer's identity — each
 * only where the server exposes it, with the request that gave it.
 *
 * | server    | request                 | fields read                                                            |
 * |-----------|-------------------------|------------------------------------------------------------------------|
 * | any       | `GET /v1/models`        | `owned_by` (`vllm`, `llamacpp`, `sglang`, `openai`/`system`), `root` (vLLM: the weights' path or repo), `meta.vocab_type` + `meta.n_vocab` + `meta.n_params` + `meta.size` (llama.cpp) |
 * | vLLM      | `GET /version`          | `version`                                                              |
 * | llama.cpp | `GET /props`            | `build_info` (server build), `model_path`, `chat_template`             |
 * | SGLang    | `GET /get_server_info`  | `version`; `GET /get_model_info`: `model_path`, `tokenizer_path`       |
 * | OpenAI    | (the host)              | the model id is the revision (dated snapshots)                         |
 *
 * `identityFrom` is pure (the tests feed it each server's documented answers); `fetchEndpointIdentity` does the
 * HTTP, each request bounded and failures ignored (a field the server does not give stays null).
 */
import { serverRoot } from '../../core/endpoint-url.ts';
import { sha256 } from '../../core/hash.ts';
import type { Server } from '../../constrain/requests.ts';
import type { EndpointIdentity } from './env.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;

export interface EndpointAnswers {
  /** The base URL's host (to recognise api.openai.com). */
  host: string;
  models?: unknown;
  version?: unknown;
  props?: unknown;
  serverInfo?: unknown;
  modelInfo?: unknown;
}

// `toolgauge serve` (a local GGUF) takes llama-server's request fields: its constraints are llama.cpp's.
const OWNERS: Record<string, Server> = {
  vllm: 'vllm',
  llamacpp: 'llamacpp',
  'llama.cpp': 'llamacpp',
  'toolgauge-serve': 'llamacpp',
  sglang: 'sglang',
  openai: 'openai',
  system: 'openai',
  'openai-internal': 'openai',
};

export function identityFrom(a: EndpointAnswers, model: string): EndpointIdentity {
  const sources: string[] = [];
  const data = isObj(a.models) && Array.isArray(a.models.data) ? (a.models.data.filter(isObj) as Obj[]) : [];
  const entry = data.find((d) => d.id === model) ?? (data.length === 1 ? data[0] : undefined);
  let server: Server | null = null;
  let version: string | null = null;
  let revision: string | null = null;
  let template: string | null = null;
  let tokenizer: string | null = null;

  const owner = entry ? str(entry.owned_by) : null;
  if (owner && OWNERS[owner]) {
    server = OWNERS[owner];
    sources.push('GET /v1/models owned_by');
  }
  if (isObj(a.props)) {
    server ??= 'llamacpp';
    version = str(a.props.build_info);
    if (version) sources.push('GET /props build_info');
    const path = str(a.props.model_path);
    if (path) revision = path;
    if (typeof a.props.chat_template === 'string' && a.props.chat_template !== '') {
      template = sha256(a.props.chat_template);
      sources.push('GET /props chat_template');
    }
  }
  if (isObj(a.version) && str(a.version.version) && !isObj(a.props)) {
    server ??= 'vllm';
    version = str(a.version.version);
    sources.push('GET /version');
  }
  if (isObj(a.serverInfo) && str(a.serverInfo.version)) {
    server ??= 'sglang';
    version ??= str(a.serverInfo.version);
    sources.push('GET /get_server_info version');
  }
  if (isObj(a.modelInfo)) {
    const path = str(a.modelInfo.model_path);
    if (path) revision ??= path;
    const tok = str(a.modelInfo.tokenizer_path);
    if (tok) {
      tokenizer = `tokenizer_path=${tok}`;
      sources.push('GET /get_model_info tokenizer_path');
    }
  }
  if (!server && /(^|\.)openai\.com$/.test(a.host)) server = 'openai';

  if (entry) {
    const meta = isObj(entry.meta) ? entry.meta : null;
    if (meta && meta.vocab_type !== undefined && meta.n_vocab !== undefined) {
      tokenizer = `vocab_type=${String(meta.vocab_type)};n_vocab=${String(meta.n_vocab)}`;
      sources.push('GET /v1/models meta.vocab_type, meta.n_vocab');
    }
    const weights =
      meta && (meta.n_params !== undefined || meta.size !== undefined)
        ? `n_params=${String(meta.n_params ?? '?')};size=${String(meta.size ?? '?')}`
        : null;
    const root = str(entry.root);
    if (root && root !== model) revision ??= root;
    if (server === 'openai') revision ??= str(entry.id);
    if (weights) revision = revision ? `${revision} (${weights})` : weights;
    if (revision) sources.push('GET /v1/models');
  }
  return {
    server,
    server_version: version,
    model_revision: revision,
    template_sha256: template,
    tokenizer,
    sources: [...new Set(sources)],
  };
}

async function getJson(url: string, apiKey: string | undefined, timeoutMs: number): Promise<unknown> {
  try {
    const r = await fetch(url, {
      headers: apiKey && apiKey !== 'not-needed' ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!r.ok) return undefined;
    const text = await r.text();
    if (text.length > 4 * 2 ** 20) return undefined;
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Ask the endpoint about itself (a few GETs, in parallel, each bounded); what it does not answer stays null. */
export async function fetchEndpointIdentity(
  baseUrl: string,
  apiKey: string | undefined,
  model: string,
  timeoutMs = 5000,
): Promise<EndpointIdentity> {
  const u = new URL(baseUrl);
  const v1 = baseUrl.replace(/\/+$/, '');
  const root = serverRoot(baseUrl);
  const [models, version, props, serverInfo, modelInfo] = await Promise.all([
    getJson(`${v1}/models`, apiKey, timeoutMs),
    getJson(`${root}/version`, apiKey, timeoutMs),
    getJson(`${root}/props`, apiKey, timeoutMs),
    getJson(`${root}/get_server_info`, apiKey, timeoutMs),
    getJson(`${root}/get_model_info`, apiKey, timeoutMs),
  ]);
  return identityFrom({ host: u.hostname, models, version, props, serverInfo, modelInfo }, model);
}
