import { BUILTIN_SUITES } from '../../builtin/index.ts';
import { UsageError } from '../../core/errors.ts';
import { setLateV8Flags } from '../../core/late-v8-flags.ts';
import { planRun } from '../../kit/plan.ts';
import { parsePolicySpec } from '../../sim/policy-spec.ts';
import { startSimServer, type Responder } from '../../sim/server.ts';
import { flagSchemas, parseFlags } from '../../kit/flags/flags.ts';

export const USAGE = `toolgauge sim [--port N] [--policy NAME] [--data FILE]
  The simulated model server on its own (an OpenAI-compatible endpoint on 127.0.0.1), e.g. to point another
  runner at it. It answers every built-in suite's requests, and every describeEval whose run registers its cases
  with it; --data names the ToolHop rows it knows.`;

/** `toolgauge sim`: the simulated model server on its own, e.g. to point another harness at it. */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags('sim', argv, {
    port: { type: 'string', schema: flagSchemas.nonNegativeInt.max(65535, 'must be <= 65535') },
    policy: { type: 'string' },
    data: { type: 'string' },
  });
  const policy = (values.policy as string | undefined) ?? 'sim:oracle';
  const spec = policy.startsWith('sim:') ? policy : `sim:${policy}`;
  try {
    parsePolicySpec(spec);
  } catch (err) {
    throw new UsageError(`toolgauge sim: --policy ${(err as Error).message}`);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLGAUGE_MODEL: 'sim:oracle', OPENAI_BASE_URL: '' };
  if (values.data) env.TOOLHOP_DATA = String(values.data);
  // The simulator knows every row of the file, whatever a run's selection (`--limit` defaults to 5) would be.
  Object.assign(env, { TOOLHOP_LIMIT: String(2 ** 31 - 1), TOOLHOP_OFFSET: '0' });
  delete env.TOOLHOP_ONLY;
  const kc = planRun(env, BUILTIN_SUITES);
  const responders: Record<string, Responder> = {};
  for (const s of BUILTIN_SUITES) {
    const set = kc.suites[s.name];
    if (set?.ok && s.responder) responders[s.name] = s.responder(kc.run, set.settings);
  }
  const server = await startSimServer({
    port: (values.port as number | undefined) ?? 0,
    defaultPolicy: spec,
    responders,
    onUnmatched: (m, status) => process.stderr.write(`toolgauge sim: answered ${status}: ${m}\n`),
  });
  // The flags this command's process handed over (bin/toolgauge.mjs), now that the server listens (which loads Node's
  // cluster and dns modules) and before anyone knows its address. The render budget's clock (`performance`, loaded
  // on first use) is loaded first, so that it still compiles with Node's code cache.
  void globalThis.performance;
  setLateV8Flags();
  // The stop signals are taken before the address is announced: whoever reads it may signal at once, and a signal
  // with no handler yet would end the process without closing the server or printing its count.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(`toolgauge simulator listening on ${server.url} (policy ${policy}); Ctrl-C to stop\n`);
  await stopped;
  await server.close();
  const { requests, unmatched } = server.stats;
  process.stdout.write(
    `toolgauge simulator stopped: ${requests} requests${unmatched ? `, ${unmatched} refused (no known instance or responder)` : ''}\n`,
  );
  return 0;
}
