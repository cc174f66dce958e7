import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planRun, settingsOf } from '../../harness/kit/plan.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import type { SuiteDefinition } from '../../harness/kit/types.ts';
import { mazeSuite } from '../../harness/maze/suite.ts';
import { probeSuite } from '../../harness/probe/suite.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
import { tempDir } from '../helpers/cli.ts';

// The reproducibility header's generation block says what every request carried: temperature, top_p and seed are
// read from the request bodies the simulator received (a recording proxy in front of it), not from the header code.

type Body = Record<string, unknown>;

/** A simulator for the suite, behind a proxy that keeps every chat/completions request body it forwards. */
async function recordingSim(
  def: SuiteDefinition<any, any, any>,
  env: NodeJS.ProcessEnv,
): Promise<{ url: string; bodies: Body[]; close(): Promise<void> }> {
  const kc = planRun(env, [def]);
  const sim: SimServer = await startSimServer({
    responders: { [def.name]: def.responder!(kc.run, settingsOf(kc, def)) },
  });
  const bodies: Body[] = [];
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && /completions$/.test(req.url ?? '')) bodies.push(JSON.parse(raw) as Body);
      const headers = Object.fromEntries(
        Object.entries(req.headers)
          .filter(([k]) => !['host', 'content-length', 'connection'].includes(k))
          .map(([k, v]) => [k, String(v)]),
      );
      const r = await fetch(sim.url.replace(/\/v1$/, '') + req.url, {
        method: req.method!,
        headers,
        ...(req.method === 'POST' ? { body: raw } : {}),
      });
      res
        .writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' })
        .end(Buffer.from(await r.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
  return {
    url,
    bodies,
    close: async () => (await new Promise<void>((r) => proxy.close(() => r())), await sim.close()),
  };
}

function expectEverySent(
  bodies: Body[],
  generation: Record<string, unknown>,
  want: { temperature: number; top_p: number; seed: number },
) {
  // the header records the run's settings …
  expect({ temperature: generation.temperature, top_p: generation.top_p, seed: generation.seed }).toEqual(want);
  // … and every request carries exactly those
  expect(bodies.length).toBeGreaterThan(0);
  for (const b of bodies) expect({ temperature: b.temperature, top_p: b.top_p, seed: b.seed }).toEqual(want);
}

describe('the generation settings in the header are the ones sent', () => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  describe('probe (chat and completions)', () => {
    for (const transport of ['chat', 'completions'] as const) {
      const env = {
        TOOLGAUGE_MODEL: 'sim:oracle',
        TOOLGAUGE_SEED: '11',
        TOOLGAUGE_PROBE_TRANSPORT: transport,
        TOOLGAUGE_PROBE_ONLY: 'c1_weather_dev_000,c1_weather_dev_001',
      };
      let rec: Awaited<ReturnType<typeof recordingSim>>;
      beforeAll(async () => {
        rec = await recordingSim(probeSuite, env);
        servers.push(rec);
      });
      it(`${transport}: seed, top_p and temperature in every request equal the header's`, async () => {
        const run = await runSuite(probeSuite, {
          ...env,
          TOOLGAUGE_SIM_URL: rec.url,
          TOOLGAUGE_OUT_DIR: tempDir(`sampling-probe-${transport}`),
        });
        expect(run.finalized.harnessErrors).toBe(0);
        expectEverySent(rec.bodies, run.finalized.summary.header.generation, { temperature: 0, top_p: 1, seed: 11 });
      });
    }
  });

  describe('maze', () => {
    const env = {
      TOOLGAUGE_MODEL: 'sim:oracle',
      TOOLGAUGE_SEED: '5',
      TOOLGAUGE_TEMPERATURE: '0.3',
      TOOLGAUGE_MAZE_ONLY: 'C1_task_001',
      TOOLGAUGE_MAZE_MODES: 'P0,P1',
    };
    let rec: Awaited<ReturnType<typeof recordingSim>>;
    beforeAll(async () => {
      rec = await recordingSim(mazeSuite, env);
      servers.push(rec);
    });
    it("seed, top_p and temperature in every request equal the header's", async () => {
      const run = await runSuite(mazeSuite, {
        ...env,
        TOOLGAUGE_SIM_URL: rec.url,
        TOOLGAUGE_OUT_DIR: tempDir('sampling-maze'),
      });
      expect(run.finalized.harnessErrors).toBe(0);
      expectEverySent(rec.bodies, run.finalized.summary.header.generation, { temperature: 0.3, top_p: 1, seed: 5 });
    });
  });
});
