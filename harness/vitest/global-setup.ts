import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { readConfig } from '../core/config.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { simKnowledge } from './sim-knowledge.ts';

/**
 * Once per eval run (in the main process): a run id (so the first test file empties the output directory once),
 * and — without `--base-url` — the simulator on 127.0.0.1, port 0, told the gold data in process.
 */
export default async function setup(project: TestProject) {
  const cfg = readConfig();
  const runId = process.env.TOOLGAUGE_RUN_ID ?? `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
  process.env.TOOLGAUGE_RUN_ID = runId;
  let sim: SimServer | undefined;
  if (cfg.usesSimulator && !cfg.simUrl) {
    const knowledge = simKnowledge(cfg);
    sim = await startSimServer({ knowledge: knowledge.knowledge, responders: knowledge.responders });
    process.env.TOOLGAUGE_SIM_URL = sim.url;
  }
  project.provide('toolgaugeRunId', runId);
  project.provide('toolgaugeSimUrl', sim?.url ?? cfg.simUrl);
  return async () => {
    await sim?.close();
  };
}
