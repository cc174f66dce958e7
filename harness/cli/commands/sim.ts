import { readConfig } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import { parsePolicySpec } from '../../sim/policy-spec.ts';
import { startSimServer } from '../../sim/server.ts';
import { simKnowledge } from '../../vitest/sim-knowledge.ts';
import { flagSchemas, parseFlags } from '../flags.ts';

/** `toolgauge sim`: the simulated model server on its own, e.g. to point another harness at it. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('sim', argv, {
    port: { type: 'string', schema: flagSchemas.nonNegativeInt },
    policy: { type: 'string' },
    data: { type: 'string' },
  });
  const policy = (values.policy as string | undefined) ?? 'sim:oracle';
  try {
    parsePolicySpec(policy.startsWith('sim:') ? policy : `sim:${policy}`);
  } catch (err) {
    throw new UsageError(`toolgauge sim: --policy ${(err as Error).message}`);
  }
  if (values.data) process.env.TOOLHOP_DATA = String(values.data);
  delete process.env.OPENAI_BASE_URL;
  const cfg = readConfig({ ...process.env, TOOLGAUGE_MODEL: 'sim:oracle' });
  const k = simKnowledge(cfg);
  const server = await startSimServer({
    port: (values.port as number | undefined) ?? 0,
    defaultPolicy: policy.startsWith('sim:') ? policy : `sim:${policy}`,
    knowledge: k.knowledge,
    responders: k.responders,
  });
  process.stdout.write(`toolgauge simulator listening on ${server.url} (policy ${policy}); Ctrl-C to stop\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}
