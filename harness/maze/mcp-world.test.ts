import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type ServedHttp } from '../mcp-serve/http.ts';
import type { CallLogLine } from '../mcp-serve/world.ts';
import { MazeSession } from './engine.ts';
import { mazeOverMcp, mazeRunToServe, mazeWorld } from './mcp-world.ts';
import { DEFAULT_CASES_DIR, type Mode } from './task.ts';

// A Maze run served over MCP, driven with the SDK's own client over Streamable HTTP on loopback: the mode applied
// at the server call by call, the call log, what the in-loop client sends, and what the HTTP front refuses.

const SOURCE = { casesDir: DEFAULT_CASES_DIR, toolPaths: [], tasksFile: undefined };
const { task } = mazeRunToServe(SOURCE, 'C1_task_001', 'P0');
const VICTIM = task.victims[0]!;
// convert_amount rounds amount × rate to cents: worked out here, not by the tool.
const ARGS = { amount: 100, rate: 0.5 };
const CLEAN = { converted: 50 };

describe('a Maze task served over MCP', () => {
  const logs: CallLogLine[] = [];
  const servers = new Map<Mode, ServedHttp>();
  beforeAll(async () => {
    for (const mode of ['P0', 'P1', 'P2'] as const)
      servers.set(
        mode,
        await serveHttp({
          info: { name: 'maze-test', version: '1' },
          newWorld: () => mazeWorld(new MazeSession(task, mode)),
          log: (l) => logs.push(l),
          port: 0,
        }),
      );
  });
  afterAll(async () => {
    for (const s of servers.values()) await s.close();
  });

  async function client(mode: Mode): Promise<Client> {
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(servers.get(mode)!.url)));
    return c;
  }
  const text = (r: Awaited<ReturnType<Client['callTool']>>) =>
    JSON.parse((r.content as Array<{ text: string }>)[0]!.text) as unknown;

  it('P0 runs the tool; P1 fails the first victim call only; P2 every one', async () => {
    const p0 = await client('P0');
    expect(text(await p0.callTool({ name: VICTIM.tool, arguments: ARGS }))).toEqual(CLEAN);
    const p1 = await client('P1');
    const first = await p1.callTool({ name: VICTIM.tool, arguments: ARGS });
    expect([first.isError, text(first)]).toEqual([true, { error: VICTIM.explicit.P1 }]);
    const again = await p1.callTool({ name: VICTIM.tool, arguments: ARGS });
    expect([again.isError, text(again)]).toEqual([false, CLEAN]);
    const p2 = await client('P2');
    for (let i = 0; i < 2; i++)
      expect(text(await p2.callTool({ name: VICTIM.tool, arguments: ARGS }))).toEqual({ error: VICTIM.explicit.P2 });
    // A new session of the P1 server is a new run: its first victim call fails again.
    const p1b = await client('P1');
    expect(text(await p1b.callTool({ name: VICTIM.tool, arguments: ARGS }))).toEqual({ error: VICTIM.explicit.P1 });
    expect(logs.map((l) => [l.mode, l.perturbation])).toEqual([
      ['P0', 'clean'],
      ['P1', 'explicit_error'],
      ['P1', 'clean'],
      ['P2', 'explicit_error'],
      ['P2', 'explicit_error'],
      ['P1', 'explicit_error'],
    ]);
    expect(logs[1]!.victim).toMatchObject({ call_number: 1 });
    expect(logs[2]!.victim).toMatchObject({ call_number: 2 });
    for (const c of [p0, p1, p2, p1b]) await c.close();
  });

  it('answers and logs an unknown tool and invalid arguments as the world does, as MCP tool errors', async () => {
    const c = await client('P0');
    const unknown = await c.callTool({ name: 'rm_rf', arguments: {} });
    expect([unknown.isError, text(unknown)]).toEqual([true, { error: 'unknown tool "rm_rf"' }]);
    const bad = await c.callTool({ name: VICTIM.tool, arguments: { amount: 'lots' } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatchObject({ error: expect.stringMatching(/^invalid arguments for convert_amount/) });
    expect(logs.slice(-2).map((l) => l.error_kind)).toEqual(['unknown_tool', 'invalid_arguments']);
    await c.close();
  });

  it('refuses a foreign Host (DNS rebinding), a web page (Origin, text/plain), another path, and no session', async () => {
    const url = new URL(servers.get('P0')!.url);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(new URL(path, url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    // fetch cannot set Host: a rebinding page's Host is spoofed with node:http instead.
    const { request } = await import('node:http');
    const foreign = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          headers: {
            host: 'evil.example:80',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(init));
    });
    expect(foreign).toBe(421);
    expect((await post('/mcp', init, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('/mcp', init, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await post('/other', init)).status).toBe(404);
    expect((await post('/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(400);
    expect((await post('/mcp', init, { 'mcp-session-id': 'nope' })).status).toBe(404);
  });
});

describe('--tool-transport mcp: the run own server', () => {
  it('hands the agent the task tools over MCP, and keeps the agent call ids and exact argument text', async () => {
    const run = await mazeOverMcp(task, 'P3');
    try {
      expect(run.executor.tools()).toEqual(run.session.tools());
      const r = await run.executor.execute({
        id: 'call_7',
        name: VICTIM.tool,
        argumentsJson: '{"amount": 100, "rate": 0.5}',
      });
      expect(JSON.parse(r.content)).toEqual(VICTIM.implicit.payload);
      // Text that is no JSON object reaches the engine as written, as it does in process.
      const bad = await run.executor.execute({ id: 'call_8', name: VICTIM.tool, argumentsJson: '{"amount": 1' });
      expect(JSON.parse(bad.content)).toMatchObject({
        error: expect.stringMatching(/^arguments are not a valid JSON object/),
      });
      expect(run.session.trace().map((e) => [e.call_id, e.arguments_json, e.status])).toEqual([
        ['call_7', '{"amount": 100, "rate": 0.5}', 'implicit_corruption'],
        ['call_8', '{"amount": 1', 'tool_error'],
      ]);
    } finally {
      await run.close();
    }
  });
});
