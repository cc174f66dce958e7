import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../core/hash.ts';
import { fetchEndpointIdentity, identityFrom } from './endpoint.ts';

// Each server's documented answers (shapes from their docs and sources: vLLM's /version and /v1/models `root`,
// llama.cpp's /props and /v1/models `meta`, SGLang's /get_server_info and /get_model_info).
const TEMPLATE = '{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}';
const LLAMA = {
  props: {
    model_alias: 'qwen',
    model_path: '/models/qwen2.5-7b-instruct-q4_k_m.gguf',
    build_info: 'b6123-abc1234',
    chat_template: TEMPLATE,
    default_generation_settings: { n_ctx: 4096 },
  },
  models: {
    object: 'list',
    data: [
      {
        id: '/models/qwen2.5-7b-instruct-q4_k_m.gguf',
        object: 'model',
        owned_by: 'llamacpp',
        meta: { vocab_type: 2, n_vocab: 152064, n_params: 7615616512, size: 4677120000 },
      },
    ],
  },
};
const VLLM = {
  version: { version: '0.11.0' },
  models: {
    object: 'list',
    data: [
      {
        id: 'Qwen/Qwen2.5-7B-Instruct',
        object: 'model',
        owned_by: 'vllm',
        root: '/hf/snapshots/a09a354/Qwen2.5-7B-Instruct',
        max_model_len: 32768,
      },
    ],
  },
};

describe('endpoint identity from what each server exposes', () => {
  it('llama.cpp: build, model path and size, the chat template hash, the tokenizer from /v1/models meta', () => {
    const id = identityFrom({ host: '127.0.0.1', ...LLAMA }, 'qwen');
    expect(id.server).toBe('llamacpp');
    expect(id.server_version).toBe('b6123-abc1234');
    expect(id.model_revision).toContain('q4_k_m.gguf');
    expect(id.model_revision).toContain('size=4677120000');
    expect(id.template_sha256).toBe(sha256(TEMPLATE));
    expect(id.tokenizer).toBe('vocab_type=2;n_vocab=152064');
  });

  it('vLLM: version and the weights root; no template or tokenizer exposed', () => {
    const id = identityFrom({ host: 'gpu-box', ...VLLM }, 'Qwen/Qwen2.5-7B-Instruct');
    expect(id).toMatchObject({
      server: 'vllm',
      server_version: '0.11.0',
      model_revision: '/hf/snapshots/a09a354/Qwen2.5-7B-Instruct',
      template_sha256: null,
      tokenizer: null,
    });
  });

  it('SGLang and OpenAI; an endpoint that says nothing stays unknown', () => {
    const sg = identityFrom(
      {
        host: 'x',
        serverInfo: { version: '0.5.2', tp_size: 1 },
        modelInfo: {
          model_path: 'meta-llama/Llama-3.1-8B-Instruct',
          tokenizer_path: 'meta-llama/Llama-3.1-8B-Instruct',
        },
      },
      'm',
    );
    expect(sg).toMatchObject({
      server: 'sglang',
      server_version: '0.5.2',
      model_revision: 'meta-llama/Llama-3.1-8B-Instruct',
      tokenizer: 'tokenizer_path=meta-llama/Llama-3.1-8B-Instruct',
    });
    const oa = identityFrom(
      { host: 'api.openai.com', models: { data: [{ id: 'gpt-4o-2024-08-06', owned_by: 'system' }] } },
      'gpt-4o-2024-08-06',
    );
    expect(oa).toMatchObject({ server: 'openai', model_revision: 'gpt-4o-2024-08-06' });
    expect(identityFrom({ host: 'x' }, 'm')).toMatchObject({
      server: null,
      server_version: null,
      model_revision: null,
      template_sha256: null,
      tokenizer: null,
    });
  });

  const server = createServer((req, res) => {
    const path = (req.url ?? '').replace(/\/+$/, '');
    const body = path === '/props' ? LLAMA.props : path === '/v1/models' ? LLAMA.models : null;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: 'not found' }));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('asks a live (loopback) endpoint; the routes it lacks are ignored', async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const id = await fetchEndpointIdentity(url, undefined, 'qwen', 2000);
    expect(id).toMatchObject({
      server: 'llamacpp',
      server_version: 'b6123-abc1234',
      template_sha256: sha256(TEMPLATE),
      tokenizer: 'vocab_type=2;n_vocab=152064',
    });
    expect(id.sources).toContain('GET /props chat_template');
  });
});
