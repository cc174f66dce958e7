import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TEAM_TOPOLOGIES } from '../agent/team/index.ts';
import { readConfig } from '../core/config.ts';
import { headerId } from '../core/ids.ts';
import { ModelClient } from '../model/client.ts';
import { startSimServer, type SimServer } from '../sim/server.ts';
import { BUNDLED_SAMPLE, loadDatasetFile } from './dataset.ts';
import { goldSandbox } from './gold-sandbox.ts';
import { runToolhopInstance } from './run-instance.ts';
import { readToolhopSettings } from './settings.ts';
import { identifyRow, questionIndex } from './sim-identify.ts';
import { toolhopResponder } from './sim-responder.ts';
import { runToolhopTeam } from './team.ts';

// Another runner against the simulator: toolgauge's own requests are captured on the wire, then sent again with
// every toolgauge header stripped, as a runner that knows nothing of toolgauge sends them (the reference runner
// builds the same bodies: same prompts, same final-answer call). The simulator must answer each exactly as it
// answered toolgauge. Tools are stubbed (each hop returns its gold intermediate answer): the simulator is under
// test, not dataset Python.

const dataset = loadDatasetFile(BUNDLED_SAMPLE);
const rows = new Map(dataset.entries.flatMap((e) => (e.ok ? [[e.id, e.row] as const] : [])));
const run = readConfig({});
const settings = readToolhopSettings({ TOOLHOP_ALLOW_DATASET_EXEC: '1', TOOLHOP_PRESET: 'reference' });
const sandbox = goldSandbox((id) => rows.get(id));
/**
 * How long a request of sim:flaky may take before it counts as hung (its `hang` fault never answers). Every other
 * answer is awaited without a limit that load could reach: a loaded machine must not turn a slow answer into a hang.
 */
const HANG_MS = 2500;
/** Rows per policy: enough for sim:coin to both win and lose. */
const ROWS = 6;
const SIZE = {
  independent: { agents: 2 },
  decentralized: { agents: 2, rounds: 2 },
  centralized: {},
  sequential: {},
} as const;

/** Every policy, with the options that make its draws differ by row, agent and trial. */
const POLICIES = [
  'sim:oracle',
  'sim:naive',
  'sim:wrong',
  'sim:untagged',
  'sim:coin',
  'sim:coin?p=0.5&seed=1',
  'sim:coin?p=0.3&seed=7',
  'sim:fault?cause=template_bug',
  'sim:fault?cause=parser_gap',
  'sim:fault?cause=format_failure',
  'sim:fault?cause=decision_failure',
  'sim:flaky?rate=0.08',
  'sim:trait',
  'sim:trait?trait=domain&seed=3',
  'sim:reflect',
];

interface Exchange {
  body: string;
  headers: Record<string, string>;
  /** The status, or `hang` when no answer came before the client gave up. */
  status: number | 'hang';
  response: string;
}

/** A pass-through to the simulator that writes down every request and its answer. */
async function recordingProxy(target: string): Promise<{ url: string; log: Exchange[]; close(): Promise<void> }> {
  const log: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      const headers = Object.fromEntries(
        Object.entries(req.headers)
          .filter(([k]) => k.startsWith('x-toolgauge-') || k === 'content-type')
          .map(([k, v]) => [k, String(v)]),
      );
      const entry: Exchange = { body, headers, status: 'hang', response: '' };
      log.push(entry);
      // A request the client gave up on (its time limit: a hung answer) stays `hang`.
      const ctl = new AbortController();
      res.on('close', () => ctl.abort());
      try {
        const upstream = await fetch(`${target}${req.url!.replace(/^\/v1/, '')}`, {
          method: req.method,
          headers,
          body,
          signal: ctl.signal,
        });
        entry.status = upstream.status;
        entry.response = await upstream.text();
        res.writeHead(upstream.status, {
          'content-type': 'application/json',
          ...(upstream.headers.get('retry-after') ? { 'retry-after': upstream.headers.get('retry-after')! } : {}),
        });
        res.end(entry.response);
      } catch {
        res.destroy();
      }
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, log, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => resolve(raw));
  });
}

const simulator = () => startSimServer({ responders: { toolhop: toolhopResponder(async () => dataset) } });

/** What a runner reads from an answer: the status, and the message and finish reason (ids and times aside). */
function readable(status: number | 'hang', response: string): unknown {
  if (status === 'hang') return 'hang';
  try {
    const j = JSON.parse(response) as {
      choices?: Array<{ message: unknown; finish_reason: unknown }>;
      error?: unknown;
    };
    return { status, message: j.choices?.[0]?.message, finish: j.choices?.[0]?.finish_reason, error: j.error };
  } catch {
    return { status, truncated: true };
  }
}

/** The same request as a runner without toolgauge's headers sends it (given up on after `waitMs`: a hang). */
async function foreign(sim: SimServer, body: string, waitMs = 60_000): Promise<unknown> {
  try {
    const r = await fetch(`${sim.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(waitMs),
    });
    return readable(r.status, await r.text());
  } catch {
    return 'hang';
  }
}

describe('the simulator answers a foreign runner as it answers toolgauge', () => {
  it.each(POLICIES)(
    '%s: every request of six sample rows, headers stripped, gets the same answer',
    { timeout: 120_000 },
    async (policy) => {
      const own = await simulator();
      const proxy = await recordingProxy(own.url);
      const fresh = await simulator(); // its own request counts, so sim:flaky's faults replay in the same order
      try {
        const client = new ModelClient({
          baseUrl: proxy.url,
          model: policy,
          timeoutMs: policy.startsWith('sim:flaky') ? HANG_MS : 60_000,
          retries: 3,
          concurrency: 16,
          backoff: { baseMs: 1, maxMs: 2 },
        });
        const outcomes = await Promise.all(
          [...rows.values()]
            .slice(0, ROWS)
            .map((row) => runToolhopInstance(row, { client, sandbox: () => sandbox, run, settings })),
        );
        expect(proxy.log.length).toBeGreaterThan(0);
        // Each distinct body in its own chain, in the order it was sent (the same body twice is a retry and must
        // meet the same fault); the chains side by side.
        const chains = new Map<string, Array<[number, Exchange]>>();
        for (const [i, x] of proxy.log.entries()) chains.set(x.body, [...(chains.get(x.body) ?? []), [i, x]]);
        const seen: Array<[number, unknown, unknown, string]> = [];
        await Promise.all(
          [...chains.values()].map(async (chain) => {
            for (const [i, x] of chain)
              seen.push([
                i,
                await foreign(fresh, x.body, x.status === 'hang' ? HANG_MS : 60_000),
                readable(x.status, x.response),
                x.headers['x-toolgauge-agent'] ?? '',
              ]);
          }),
        );
        for (const [i, got, want, agent] of seen.sort((a, b) => a[0] - b[0])) {
          expect(agent, `request ${i}`).toBe('solver');
          expect(got, `${policy} request ${i}: ${proxy.log[i]!.body.slice(0, 160)}`).toEqual(want);
        }
        if (policy === 'sim:untagged') {
          // The final-answer call was made and answered for every row (the request most runners could not be
          // told apart by before: its question is followed by the observations).
          expect(outcomes.every((o) => o.trace.forced_final)).toBe(true);
          expect(outcomes.every((o) => o.result.correct)).toBe(true);
        }
        if (policy === 'sim:coin') expect(new Set(outcomes.map((o) => o.result.correct)).size).toBe(2);
      } finally {
        await proxy.close();
        await Promise.all([own.close(), fresh.close()]);
      }
    },
  );

  it('recognises every team member request (each turn, with or without tools, and the final-answer call) by content', async () => {
    const own = await simulator();
    const proxy = await recordingProxy(own.url);
    try {
      const client = new ModelClient({
        baseUrl: proxy.url,
        model: 'sim:untagged',
        timeoutMs: 5000,
        retries: 0,
        concurrency: 16,
      });
      const some = [...rows.values()].slice(0, 2);
      for (const topology of TEAM_TOPOLOGIES) {
        await Promise.all(
          some.map((row) =>
            runToolhopTeam(row, { client, sandbox: () => sandbox, run, settings }, { topology, ...SIZE[topology] }),
          ),
        );
      }
      const index = questionIndex([...rows].map(([id, row]) => [headerId(id), row]));
      const bodies = proxy.log.map((x) => ({
        body: JSON.parse(x.body) as { messages: Array<{ role: string; content: string }>; tools?: unknown[] },
        instance: x.headers['x-toolgauge-instance'],
      }));
      expect(bodies.some((b) => !b.body.tools)).toBe(true);
      expect(bodies.some((b) => /^You are a strict answer extractor/.test(b.body.messages[0]!.content))).toBe(true);
      for (const b of bodies) expect(`toolhop:${identifyRow(index, b.body as never)}`).toBe(b.instance);
      expect(proxy.log.every((x) => x.status === 200)).toBe(true);
    } finally {
      await proxy.close();
      await own.close();
    }
  });

  it('a header naming another suite keeps the request there, even when its content quotes a ToolHop question', async () => {
    const sim = await startSimServer({
      responders: {
        toolhop: toolhopResponder(async () => dataset),
        other: { chat: () => ({ content: 'from the other suite' }) },
      },
    });
    try {
      const row = [...rows.values()][0]!;
      const body = JSON.stringify({
        model: 'sim:oracle',
        messages: [{ role: 'user', content: `Failing rows:\nQuestion: ${row.question}\nWrite a better instruction.` }],
      });
      const r = await fetch(`${sim.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-toolgauge-instance': 'other:k1' },
        body,
      });
      expect(readable(r.status, await r.text())).toMatchObject({
        status: 200,
        message: { content: 'from the other suite' },
      });
      // Without the header the same request is the row's.
      expect(await foreign(sim, body)).toMatchObject({ status: 200 });
      expect(((await foreign(sim, body)) as { message: { content: unknown } }).message.content).not.toBe(
        'from the other suite',
      );
    } finally {
      await sim.close();
    }
  });

  it('a request naming no known row gets 422 (not retried by any client), counted as unmatched', async () => {
    const sim = await simulator();
    try {
      const body = JSON.stringify({
        model: 'sim:oracle',
        messages: [{ role: 'user', content: 'Question: What is the capital of Mars?' }],
      });
      expect(await foreign(sim, body)).toMatchObject({ status: 422 });
      expect(sim.stats.unmatched).toBe(1);
    } finally {
      await sim.close();
    }
  });
});
