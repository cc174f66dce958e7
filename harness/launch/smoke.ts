import { UsageError } from '../core/errors.ts';
import type { RunConfig } from '../core/config.ts';
import { EndpointUnavailable, smokeToolCall } from '../model/preflight.ts';

/**
 * `--smoke` (docs/models.md): one tool call from the run's endpoint before the run starts; an endpoint that cannot
 * make one stops the command with one line and exit code 2. The caller runs it only against a real endpoint (the
 * simulator, a cache replay and a merge of reports make no request).
 */
export async function runSmoke(
  command: string,
  run: Pick<RunConfig, 'baseUrl' | 'apiKey' | 'model' | 'requestTimeoutMs'>,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<void> {
  if (!run.baseUrl) return;
  try {
    const call = await smokeToolCall({
      baseUrl: run.baseUrl,
      apiKey: run.apiKey,
      model: run.model,
      timeoutMs: run.requestTimeoutMs,
    });
    log(
      `toolgauge ${command}: smoke test passed: ${run.model} called ${call.name}(${call.arguments.length > 80 ? `${call.arguments.slice(0, 80)}…` : call.arguments})`,
    );
  } catch (err) {
    if (err instanceof EndpointUnavailable) throw new UsageError(`toolgauge ${command}: ${err.message}`);
    throw err;
  }
}
