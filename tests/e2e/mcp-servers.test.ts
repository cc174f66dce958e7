import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../harness/core/config.ts';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import type { EvalTools } from '../../harness/kit/eval/tool-source.ts';
import type { EvalCase, Scorer, TaskOutput } from '../../harness/kit/eval/types.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { mcp } from '../../harness/mcp/source.ts';
import { tempDir } from '../helpers/cli.ts';

// describeEvals over real MCP servers from npm, answered by the simulator: sim:oracle makes each case's expected
// calls through toolgauge's loop, the servers answer them, and the scorers read what came back. What each server
// must return is written here by hand from its documented behaviour; the files on disk and the process table are
// read directly, not through the code under test.

const pkg = (name: string) =>
  fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url));
const MEMORY = fileURLToPath(new URL('../fixtures/mcp/memory-server.mjs', import.meta.url));

/** Each case's `serverSays`: what its last tool call must have returned (text, or JSON compared as data). */
const serverSaid: Scorer<string, unknown, TaskOutput> = {
  name: 'server_said',
  score: ({ output, case: c }) => {
    const last = output.toolCalls.at(-1);
    if (!last) return { score: 0, reason: 'no tool call' };
    const want = c.serverSays;
    const got = last.error ?? last.result;
    const same = typeof want === 'string' ? got.includes(want) : safeJson(got, want);
    return { score: same, reason: same ? undefined : `the server said ${got.slice(0, 200)}` } as never;
  },
};
function safeJson(text: string, want: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(want);
  } catch {
    return false;
  }
}

function run(name: string, cases: EvalCase[], tools: EvalTools) {
  const def = evalSuite(name, {
    data: () => cases,
    tools,
    task: toolLoop({ maxTurns: 4 }),
    scorers: [scorers.toolCalls(), scorers.answerMatches(), serverSaid],
  });
  return runSuite(
    def,
    { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: tempDir(`mcp-${name}`) },
    { concurrency: 1 },
  );
}

/** Processes whose command line holds `marker` (Linux's /proc; elsewhere the check is skipped). */
function processesWith(marker: string): number[] {
  if (!existsSync('/proc/self/cmdline')) return [];
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('server-filesystem on a temp folder', () => {
  it('reads, writes and is refused outside its folder, scored end to end', async () => {
    const dir = tempDir('mcp-fs');
    writeFileSync(join(dir, 'notes.txt'), 'the key is under the mat');
    const r = await run(
      'mcp-fs',
      [
        {
          id: 'read',
          input: 'What do my notes say?',
          expected: 'under the mat',
          expectedTools: [{ name: 'read_text_file', arguments: { path: join(dir, 'notes.txt') } }],
          serverSays: 'the key is under the mat',
        },
        {
          id: 'write',
          input: 'Save a greeting and read it back',
          expected: 'saved',
          expectedTools: [
            { name: 'write_file', arguments: { path: join(dir, 'out.txt'), content: 'written through MCP' } },
            { name: 'read_text_file', arguments: { path: join(dir, 'out.txt') } },
          ],
          serverSays: 'written through MCP',
        },
        {
          id: 'outside',
          input: 'Read /etc/hostname',
          expected: 'refused',
          expectedTools: [{ name: 'read_text_file', arguments: { path: '/etc/hostname' } }],
          serverSays: 'Access denied',
        },
      ],
      [mcp({ command: process.execPath, args: [pkg('server-filesystem'), dir], name: 'fs' })],
    );
    expect(r.finalized.harnessErrors).toBe(0);
    expect(r.metas.map((m) => [m.id, m.pass, m.scores])).toEqual([
      ['read', true, { tool_calls: 1, answer_matches: 1, server_said: 1 }],
      ['write', true, { tool_calls: 1, answer_matches: 1, server_said: 1 }],
      ['outside', true, { tool_calls: 1, answer_matches: 1, server_said: 1 }],
    ]);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe('written through MCP');
    const trace = JSON.parse(readFileSync(join(r.outDir, r.metas[2]!.trace!), 'utf8'));
    expect(trace.output.toolCalls[0].error).toMatch(/^tool error: Access denied - path outside allowed directories/);
  });
});

describe('server-memory: state that leaks from case to case, and the two ways to stop it', () => {
  const ada = { name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program'] };
  const cases = (readSays: unknown): EvalCase[] => [
    {
      id: 'create',
      input: 'Remember Ada Lovelace, who wrote the first program',
      expected: 'remembered',
      expectedTools: [{ name: 'create_entities', arguments: { entities: [ada] } }],
      serverSays: [ada],
    },
    {
      id: 'read',
      input: 'What do you remember?',
      expected: 'recalled',
      expectedTools: [{ name: 'read_graph', arguments: {} }],
      serverSays: readSays,
    },
  ];
  const memory = (file: string, extra: Record<string, unknown> = {}) =>
    mcp({ command: process.execPath, args: [MEMORY, file], name: 'memory', ...extra });

  it('one server for the run: the second case sees what the first created; the server is gone after the run', async () => {
    const file = join(tempDir('mcp-mem'), 'shared.jsonl');
    const r = await run('mcp-mem-shared', cases({ entities: [ada], relations: [] }), [memory(file)]);
    expect(r.finalized.harnessErrors).toBe(0);
    expect(r.metas.map((m) => [m.id, m.pass])).toEqual([
      ['create', true],
      ['read', true],
    ]);
    expect(processesWith(file)).toEqual([]);
  });

  it("perCase: 'restart' (a fresh server, a fresh memory file) and a beforeCase hook that empties the graph: the read sees nothing", async () => {
    const empty = { entities: [], relations: [] };
    const dir = tempDir('mcp-mem-restart');
    const restart = await run('mcp-mem-restart', cases(empty), [
      memory(join(dir, 'mem-{pid}.jsonl'), { perCase: 'restart' }),
    ]);
    expect(restart.metas.map((m) => [m.id, m.pass, m.error])).toEqual([
      ['create', true, null],
      ['read', true, null],
    ]);
    expect(processesWith(dir)).toEqual([]);
    const hooked = await run('mcp-mem-hook', cases(empty), [
      memory(join(tempDir('mcp-mem-hook'), 'hook.jsonl'), {
        beforeCase: async (client: import('@modelcontextprotocol/sdk/client/index.js').Client) => {
          const g = await client.callTool({ name: 'read_graph', arguments: {} });
          const names = (g.structuredContent as { entities: Array<{ name: string }> }).entities.map((e) => e.name);
          if (names.length) await client.callTool({ name: 'delete_entities', arguments: { entityNames: names } });
        },
      }),
    ]);
    expect(hooked.metas.map((m) => [m.id, m.pass, m.error])).toEqual([
      ['create', true, null],
      ['read', true, null],
    ]);
  });
});

describe('server-everything: what its results look like to the model', () => {
  it('a JSON Schema passes as it is; text, an image placeholder, structured content', async () => {
    const s = mcp({ command: process.execPath, args: [pkg('server-everything'), 'stdio'], name: 'everything' });
    try {
      const lease = await s.acquire({} as RunConfig);
      const tool = (n: string) => lease.tools.find((t) => t.name === n)!;
      expect(tool('get-sum').parameters).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      });
      expect(await tool('get-sum').run({ a: 2, b: 3 })).toBe('The sum of 2 and 3 is 5.');
      expect(await tool('get-tiny-image').run({})).toMatch(
        /^Here's the image you requested:\n\[image: image\/png, \d+ bytes\]\n/,
      );
      expect(JSON.parse(String(await tool('get-structured-content').run({ location: 'New York' })))).toMatchObject({
        temperature: expect.any(Number),
      });
      expect(lease.notes?.()).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe('a server over Streamable HTTP on 127.0.0.1', () => {
  it('lists and calls its tools with the headers given; a wrong URL is one line', async () => {
    const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
    const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
    const { z } = await import('zod');
    const seen: string[] = [];
    const http = createServer(async (req, res) => {
      seen.push(String(req.headers.authorization));
      // stateless: a server and a transport per request, as the SDK's own example does
      const server = new McpServer({ name: 'web', version: '1.0.0' });
      server.registerTool('shout', { description: 'Upper-case', inputSchema: { text: z.string() } }, ({ text }) => ({
        content: [{ type: 'text', text: text.toUpperCase() }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const s = mcp({ url, headers: { authorization: 'Bearer web-token-123' } });
    try {
      const lease = await s.acquire({} as RunConfig);
      expect(lease.tools.map((t) => t.name)).toEqual(['shout']);
      expect(await lease.tools[0]!.run({ text: 'hi' })).toBe('HI');
      expect(new Set(seen)).toEqual(new Set(['Bearer web-token-123']));
      await expect(
        mcp({ url: url.replace('/mcp', '/none').replace(/:\d+/, ':1'), startTimeoutMs: 5000 }).acquire({} as RunConfig),
      ).rejects.toThrow(/^mcp server '127\.0\.0\.1:1': [^\n]*(ECONNREFUSED|fetch failed)/);
    } finally {
      await s.close();
      await new Promise<void>((r) => http.close(() => r()));
    }
  });
});
