import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../harness/core/paths.ts';
import { cleanEnv, readLines, spawnToolgauge, tempDir } from '../helpers/cli.ts';

// `toolgauge mcp serve maze` checked from outside with the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli,
// its `--cli` client: tools/list, tools/call), over Streamable HTTP and over stdio, and once with the MCP SDK's own
// client. The oracle is the task file itself (cases/maze/c1.json): the tools on the task's paths, and the victim's
// fixed perturbations.

interface Victim {
  tool: string;
  explicit: { P1: string; P2: string };
  implicit: { payload: Record<string, unknown> };
}
const TASK = (
  JSON.parse(readFileSync(fromRoot('cases', 'maze', 'c1.json'), 'utf8')) as {
    tasks: Array<{ id: string; paths: Array<{ tools: string[] }>; victims: Victim[] }>;
  }
).tasks.find((t) => t.id === 'C1_task_001')!;
const VICTIM = TASK.victims[0]!;
const ARGS = ['--tool-arg', 'amount=100', '--tool-arg', 'rate=0.5'];

// The inspector CLI finds its own package.json relative to the working directory: it runs from its build folder.
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/index.js');
async function inspector(target: string[], args: string[]): Promise<Record<string, unknown>> {
  const r = await execa('node', [INSPECTOR, ...target, ...args], {
    cwd: dirname(INSPECTOR),
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return JSON.parse(String(r.stdout)) as Record<string, unknown>;
}
/** One tools/call in a session of its own, through the MCP SDK's client. */
async function sdkCall(url: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const client = new Client({ name: 'mcp-serve-maze-test', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return (await client.callTool({ name, arguments: args })) as Record<string, unknown>;
  } finally {
    await client.close();
  }
}
const textOf = (r: Record<string, unknown>) => JSON.parse((r.content as Array<{ text: string }>)[0]!.text) as unknown;

describe('toolgauge mcp serve maze, through the MCP Inspector CLI', () => {
  const log = join(tempDir('mcp-serve'), 'calls.jsonl');
  let server: ReturnType<typeof spawnToolgauge>;
  let url: string;

  beforeAll(async () => {
    server = spawnToolgauge([
      'mcp',
      'serve',
      'maze',
      '--task',
      'C1_task_001',
      '--mode',
      'P3',
      '--transport',
      'http',
      '--call-log',
      log,
    ]);
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server.stdout!.on('data', (d: Buffer) => {
        out += String(d);
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
        if (m) resolve(m[1]!);
      });
      server.catch(reject);
      void server.then((r) => reject(new Error(`the server stopped: ${String(r.stderr)}`)));
    });
  });
  afterAll(async () => {
    server.kill('SIGTERM');
    await server;
  });

  it('lists exactly the tools on the task paths, with their JSON Schemas', async () => {
    const r = await inspector([url], ['--method', 'tools/list']);
    const tools = r.tools as Array<{ name: string; inputSchema: { type: string; properties: object } }>;
    expect(tools.map((t) => t.name)).toEqual([...new Set(TASK.paths.flatMap((p) => p.tools))].sort());
    for (const t of tools) expect(t.inputSchema).toMatchObject({ type: 'object', properties: expect.any(Object) });
  });

  it('injects P3 at the server: the victim returns the task fixed corruption, afresh in every session', async () => {
    // The first session is the Inspector's; the second the MCP SDK's own client in this process (a process fewer).
    const sessions = [
      await inspector([url], ['--method', 'tools/call', '--tool-name', VICTIM.tool, ...ARGS]),
      await sdkCall(url, VICTIM.tool, { amount: 100, rate: 0.5 }),
    ];
    for (const r of sessions) {
      expect(r.isError ?? false).toBe(false);
      expect(textOf(r)).toEqual(VICTIM.implicit.payload);
    }
    const lines = readLines<Record<string, unknown>>(log).filter((l) => l.tool === VICTIM.tool);
    expect(lines).toHaveLength(2);
    for (const l of lines)
      expect(l).toMatchObject({
        arguments: { amount: 100, rate: 0.5 },
        result: VICTIM.implicit.payload,
        perturbation: 'implicit_corruption',
        mode: 'P3',
        task: 'C1_task_001',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    expect(lines[0]!.session).not.toBe(lines[1]!.session);
  });

  it('serves stdio too: P2 gives the victim its permanent error as an MCP tool error', async () => {
    const serve = ['node', fromRoot('bin', 'toolgauge.mjs'), 'mcp', 'serve', 'maze', '--task', 'C1_task_001_P2'];
    const r = await inspector(serve, ['--method', 'tools/call', '--tool-name', VICTIM.tool, ...ARGS]);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toEqual({ error: VICTIM.explicit.P2 });
  });
});
