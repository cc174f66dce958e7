import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.ts';
import { reproHeader } from '../core/repro.ts';
import { startSimServer } from '../sim/server.ts';
import { evalSuite } from '../kit/eval/suite.ts';
import { LOCK_FILE } from '../kit/lock.ts';
import { planRun } from '../kit/plan.ts';
import { openRun } from './open-run.ts';

// The launcher on real loopback HTTP: the simulator it starts answers, its lock is on disk while the run is open, and
// `close()` undoes both; a refusal is one line naming the command and leaves nothing behind.

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'tg-open-run-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const suite = evalSuite('launch-demo', {
  data: () => [{ input: 'x' }],
  task: async () => {
    throw new Error('not run here');
  },
  scorers: [],
});

/** Whether something answers HTTP at `url` (the simulator's /v1/models). */
async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/models`, { signal: AbortSignal.timeout(2_000) });
    return r.ok;
  } catch {
    return false;
  }
}

describe('openRun', () => {
  it('starts the simulator a simulated run needs and takes the lock; close() stops it and gives the lock back, once', async () => {
    const dir = tmp();
    const plan = planRun({ TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: dir }, [suite]);
    expect(plan.simUrl).toBeUndefined();
    const opened = await openRun(plan, {
      command: 'toolgauge demo',
      suites: [suite],
      outDir: dir,
      claim: { suite, settings: { threshold: 1 }, dir, mode: 'fresh' },
    });
    expect(opened.plan.simUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(await answers(opened.plan.simUrl!)).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ run_id: plan.runId });
    // a second run on the same folder is refused in one line, naming its command
    const other = planRun({ TOOLGAUGE_MODEL: 'sim:oracle' }, [suite]);
    const refused = await openRun(other, {
      command: 'toolgauge other',
      suites: [suite],
      outDir: dir,
      claim: { suite, settings: { threshold: 1 }, dir, mode: 'fresh' },
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toMatch(/^toolgauge other: /);
    expect((refused as Error).message).not.toContain('\n');
    // the refused run started no simulator of its own
    expect(other.simUrl).toBeUndefined();
    await opened.close();
    expect(await answers(opened.plan.simUrl!)).toBe(false);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    await opened.close();
  });

  it('a merge of reports makes no request: no simulator; a replayed run checks no endpoint', async () => {
    const dir = tmp();
    const merge = await openRun(planRun({ TOOLGAUGE_MODEL: 'sim:oracle' }, []), {
      command: 'toolgauge eval',
      suites: [],
      outDir: dir,
      noRequests: true,
    });
    expect(merge.plan.simUrl).toBeUndefined();
    await merge.close();
    const replay = await openRun(
      planRun({ TOOLGAUGE_MODEL: 'm', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', TOOLGAUGE_CACHE: 'replay' }, []),
      { command: 'toolgauge eval', suites: [], outDir: dir },
    );
    expect(replay.plan.simUrl).toBeUndefined();
    await replay.close();
  });

  it('checks a real endpoint before anything else is opened: a closed port is one line and no lock is left', async () => {
    const dir = tmp();
    const plan = planRun({ TOOLGAUGE_MODEL: 'm', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, [suite]);
    const err = await openRun(plan, {
      command: 'toolgauge demo',
      suites: [suite],
      outDir: dir,
      claim: { suite, settings: { threshold: 1 }, dir, mode: 'fresh' },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/^toolgauge demo: .*127\.0\.0\.1:9/);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    expect(plan.simUrl).toBeUndefined();
  });

  it("runs the command's own check before the endpoint check, on the plan it opens", async () => {
    const seen: string[] = [];
    const server: Server = createServer((req, res) => {
      seen.push(`endpoint ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ id: 'm' }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const opened = await openRun(planRun({ TOOLGAUGE_MODEL: 'm', OPENAI_BASE_URL: url }, []), {
        command: 'toolgauge demo',
        suites: [],
        outDir: tmp(),
        check: (p) => void seen.push(`check ${p.run.model}`),
      });
      expect(seen[0]).toBe('check m');
      expect(seen.slice(1).every((s) => s.startsWith('endpoint '))).toBe(true);
      expect(seen.length).toBeGreaterThan(1);
      // a real endpoint and no suite that plays a second model: no simulator
      expect(opened.plan.simUrl).toBeUndefined();
      await opened.close();
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a simulator behind --base-url is reported as the simulator whatever the model is called; another endpoint is not', async () => {
    const sim = await startSimServer({ responders: {} });
    try {
      const plan = planRun({ TOOLGAUGE_MODEL: 'gpt-4o-nosuch', OPENAI_BASE_URL: sim.url }, []);
      expect(plan.run.usesSimulator).toBe(false);
      const opened = await openRun(plan, { command: 'toolgauge eval', suites: [], outDir: tmp() });
      const header = (p: typeof plan) => reproHeader(p.run, { startedAt: new Date(0), endedAt: new Date(0) });
      expect(header(opened.plan).simulated).toBe(true);
      await opened.close();
      // the same name against an endpoint that is not the simulator: a model's result
      const server: Server = createServer((_req, res) =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: [{ id: 'gpt-4o-nosuch', owned_by: 'vllm' }] })),
      );
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
        const real = await openRun(planRun({ TOOLGAUGE_MODEL: 'gpt-4o-nosuch', OPENAI_BASE_URL: url }, []), {
          command: 'toolgauge eval',
          suites: [],
          outDir: tmp(),
        });
        expect(header(real.plan).simulated).toBe(false);
        await real.close();
      } finally {
        await new Promise<void>((r) => server.close(() => r()));
      }
    } finally {
      await sim.close();
    }
  });

  /** A loopback endpoint whose models list is `data`, for the length of `fn`. */
  async function withModels(data: unknown[], fn: (url: string) => Promise<void>): Promise<void> {
    const server: Server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data })),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }
  const open = (model: string, url: string, extra: Partial<Parameters<typeof openRun>[1]> = {}) =>
    openRun(planRun({ TOOLGAUGE_MODEL: model, OPENAI_BASE_URL: url }, []), {
      command: 'toolgauge eval',
      suites: [],
      outDir: tmp(),
      ...extra,
    });

  it('refuses a model the endpoint does not list, in one line naming it and (at most ten of) the listed models', async () => {
    const data = Array.from({ length: 12 }, (_, i) => ({ id: `model-${i}`, owned_by: 'vllm' }));
    await withModels(data, async (url) => {
      const err = await open('model-typo', url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      const msg = (err as Error).message;
      expect(msg).toMatch(/^toolgauge eval: model 'model-typo' is not among the models the endpoint lists: model-0, /);
      expect(msg).toContain('model-9, …');
      expect(msg).not.toContain('model-10');
      expect(msg).toContain('127.0.0.1');
      expect(msg).not.toContain('\n');
      // a listed model opens
      await (await open('model-11', url)).close();
      // a custom preflight (requests that are not chat completions) is the suite's own check
      await (await open('model-typo', url, { preflight: async () => undefined })).close();
    });
  });

  it("accepts Ollama's implied :latest tag and servers that answer under any model name", async () => {
    await withModels([{ id: 'llama3:latest', owned_by: 'library' }], async (url) => {
      await (await open('llama3', url)).close();
    });
    await withModels([{ id: 'qwen', owned_by: 'library' }], async (url) => {
      await (await open('qwen:latest', url)).close();
    });
    for (const owner of ['llamacpp', 'toolgauge-serve', 'toolgauge-simulator'])
      await withModels([{ id: 'whatever.gguf', owned_by: owner }], async (url) => {
        await (await open('gpt-4o', url)).close();
      });
  });

  it('refuses an output directory it cannot write before it opens anything', async () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, 'x');
    const plan = planRun({ TOOLGAUGE_MODEL: 'sim:oracle' }, []);
    await expect(openRun(plan, { command: 'toolgauge demo', suites: [], outDir: join(file, 'out') })).rejects.toThrow(
      UsageError,
    );
    expect(plan.simUrl).toBeUndefined();
  });
});
