import { existsSync } from 'node:fs';
import { UsageError } from '../../core/errors.ts';
import { defaultThreads, serveGguf } from '../../serve/run-engine.ts';
import { flagSchemas, parseFlags } from '../../kit/flags/flags.ts';

export const USAGE = `toolgauge serve --gguf FILE [--host 127.0.0.1] [--port N|0] [--parallel N] [--queue N] [--threads N] [--ctx N] [--timeout MS] [--alias NAME]
  An OpenAI-compatible server over a local GGUF model (llama.cpp through node-llama-cpp, in child processes):
  /v1/models, /v1/chat/completions (the file's own chat template; tools, tool_choice auto/none/required/named),
  /v1/completions (raw prompt). Accepts llama-server's grammar, grammar_lazy + grammar_triggers, json_schema,
  response_format, logit_bias, logprobs, seed, temperature, top_p, repeat_penalty, max_tokens, stop; refuses with a
  400 what it does not implement. --parallel requests generate at once, each in an engine process of its own (the
  weights are memory-mapped once), --queue more wait (default 256), beyond that 503 with Retry-After. --timeout: a
  request's deadline from its arrival, queue wait included (default 300000 ms); past it the request is stopped, its
  engine process restarted if it does not stop, and it is answered 504. Loopback only unless --host says otherwise
  (there is no authentication).
  --threads: default 1 on 2 cores or fewer, else half the logical cores. Needs node-llama-cpp (npm run setup:engine).`;

/** `toolgauge serve`: the local engine as an OpenAI-compatible endpoint for any runner. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('serve', argv, {
    gguf: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string', schema: flagSchemas.nonNegativeInt },
    parallel: { type: 'string', schema: flagSchemas.positiveInt },
    queue: { type: 'string', schema: flagSchemas.nonNegativeInt },
    threads: { type: 'string', schema: flagSchemas.positiveInt },
    ctx: { type: 'string', schema: flagSchemas.positiveInt },
    timeout: { type: 'string', schema: flagSchemas.positiveInt },
    alias: { type: 'string' },
  });
  const gguf = values.gguf as string | undefined;
  if (!gguf) throw new UsageError('toolgauge serve: --gguf FILE is required');
  if (!existsSync(gguf)) throw new UsageError(`toolgauge serve: --gguf '${gguf}' does not exist`);
  const host = (values.host as string | undefined) ?? '127.0.0.1';
  let server;
  try {
    server = await serveGguf({
      gguf,
      host,
      port: (values.port as number | undefined) ?? 8080,
      parallel: (values.parallel as number | undefined) ?? 1,
      threads: (values.threads as number | undefined) ?? defaultThreads(),
      ...(values.ctx !== undefined ? { contextSize: values.ctx as number } : {}),
      ...(values.queue !== undefined ? { queue: values.queue as number } : {}),
      ...(values.timeout !== undefined ? { requestTimeoutMs: values.timeout as number } : {}),
      ...(values.alias !== undefined ? { alias: values.alias as string } : {}),
    });
  } catch (err) {
    throw new UsageError(`toolgauge serve: ${(err as Error).message}`);
  }
  const i = server.info;
  if (!/^(127\.|::1$|localhost$)/.test(host))
    process.stderr.write(`toolgauge serve: listening on ${host}, beyond this machine, with no authentication\n`);
  process.stdout.write(
    `toolgauge serve listening on ${server.url} — ${i.engine}${i.llamaCppBuild ? ` (llama.cpp ${i.llamaCppBuild})` : ''}; ${i.file} ${i.tensorType}, sha256 ${i.sha256.slice(0, 16)}…` +
      `${i.testModel ? '; TOOLGAUGE TEST MODEL (random weights)' : ''}; Ctrl-C to stop\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
