/**
 * A probe lineup of local GGUF files (`--model gguf:a.gguf,gguf:b.gguf`): the run's own model (the first) gets the
 * run's engine like any gguf: run; every further gguf: entry gets a `toolgauge serve` of its own, started here before
 * the tests and stopped after the run. Each URL is set on its entry of the settings, which the test workers receive in
 * the run's configuration.
 */
import type { RunConfig } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import type { ProbeSettings } from './env.ts';
import { ggufPathOf } from './gguf-lineup.ts';

export interface LineupEngines {
  close(): Promise<void>;
}

export async function startLineupEngines(
  settings: ProbeSettings,
  run: Pick<RunConfig, 'model' | 'engine'>,
): Promise<LineupEngines> {
  const extra = settings.models.filter(
    (m) => ggufPathOf(m.model) !== null && m.model !== run.model && m.baseUrl === undefined,
  );
  const handles: Array<{ close(): Promise<void> }> = [];
  const close = async () => void (await Promise.all(handles.splice(0).map((h) => h.close().catch(() => undefined))));
  if (extra.length === 0) return { close };
  const { serveGguf } = await import('../../serve/run-engine.ts');
  try {
    for (const m of extra) {
      const gguf = ggufPathOf(m.model)!;
      try {
        const h = await serveGguf({
          gguf,
          alias: m.model,
          parallel: run.engine?.parallel ?? 1,
          ...(run.engine?.threads ? { threads: run.engine.threads } : {}),
          ...(run.engine?.contextSize ? { contextSize: run.engine.contextSize } : {}),
        });
        handles.push(h);
        m.baseUrl = h.url;
      } catch (err) {
        throw new UsageError(
          `toolgauge probe: --model ${m.model}: the local engine did not start: ${(err as Error).message.split('\n')[0]}`,
        );
      }
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { close };
}
