import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunConfig } from '../../harness/core/config.ts';
import { scorers } from '../../harness/kit/eval/scorers.ts';
import { evalSuite } from '../../harness/kit/eval/suite.ts';
import { toolLoop } from '../../harness/kit/eval/tool-loop.ts';
import { leaseTools, type EvalToolSource, type ToolLease } from '../../harness/kit/eval/tool-source.ts';
import { runSuite } from '../../harness/launch/run-suite.ts';
import { mcp, type McpServerOptions } from '../../harness/mcp/source.ts';
import { tempDir } from '../helpers/cli.ts';

// A hostile MCP server (tests/fixtures/mcp/hostile-server.mjs, the SDK's server API) against toolgauge's MCP client:
// each misbehaviour is contained and named in one line. What the server did is read from the server itself (its
// pid, its replies), not from the client's own bookkeeping.

const SERVER = fileURLToPath(new URL('../fixtures/mcp/hostile-server.mjs', import.meta.url));
const RUN = {} as RunConfig;
const hostile = (mode = 'tools', extra: Partial<McpServerOptions> = {}) =>
  mcp({ command: process.execPath, args: [SERVER, mode], name: `hostile-${mode}`, ...extra } as McpServerOptions);
const call = (lease: ToolLease, name: string, args: Record<string, unknown> = {}) =>
  Promise.resolve(lease.tools.find((t) => t.name === name)!.run(args)) as Promise<string>;

/** Whether a process is running (a reaped child is gone; the wait covers the reaping, not a timing claim). */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe('one well-behaved start of the hostile server, shared by the calls that do not break it', () => {
  const source = hostile('tools', { maxResultChars: 1000 });
  let lease: ToolLease;
  beforeAll(async () => {
    lease = await source.acquire(RUN);
  });
  afterAll(() => source.close());

  it('caps a huge result with a marker giving its length', async () => {
    const text = await call(lease, 'huge', { n: 5000 });
    expect(text).toBe(`${'x'.repeat(1000)}\n... [mcp result cut: 5000 chars, cap 1000]`);
  });

  it('hands the model text for each content shape; isError becomes a tool error', async () => {
    expect(await call(lease, 'shapes')).toBe('sum follows\n[image: image/png, 10 bytes]');
    expect(await call(lease, 'structured')).toBe('{"sum":5}');
    await expect(call(lease, 'fail')).rejects.toThrow('it went wrong');
    expect(lease.failure()).toBeUndefined();
  });

  it('replaces a schema that is not an object schema, leaves out a name no endpoint takes, and says so', () => {
    const names = lease.tools.map((t) => t.name);
    expect(names).not.toContain('bad name!');
    expect(lease.tools.find((t) => t.name === 'stringy')!.parameters).toEqual({ type: 'object', properties: {} });
    expect(lease.notes!()).toEqual([
      `mcp server 'hostile-tools': tool 'stringy': inputSchema is not a JSON Schema object; replaced by an empty object schema`,
      `mcp server 'hostile-tools': tool "bad name!" (tools[12]) left out: a tool name must be 1-64 letters, digits, '_' or '-'`,
    ]);
  });

  it('reads the tool list once per start: a list changed mid-run is not followed', async () => {
    expect(await call(lease, 'mutate')).toBe('changed');
    const again = await source.acquire(RUN);
    expect(again.tools.map((t) => t.name)).toEqual(lease.tools.map((t) => t.name));
    expect(again.tools.map((t) => t.name)).not.toContain('added');
    // the same process answers both leases
    expect(await call(again, 'pid')).toBe(await call(lease, 'pid'));
  });

  it("refuses a name given twice, naming both owners: the eval's own tool and the server's", async () => {
    const own = { name: 'echo', run: () => 'mine' };
    await expect(leaseTools('e', [own, source], RUN)).rejects.toThrow(
      "describeEval e: the tool name 'echo' is given by the eval and by mcp server 'hostile-tools'; rename one (mcp({ prefix }) prefixes a server's tools)",
    );
  });
});

describe('servers that break', () => {
  const started: EvalToolSource[] = [];
  const src = (mode: string, extra: Partial<McpServerOptions> = {}) => {
    const s = hostile(mode, extra);
    started.push(s);
    return s;
  };
  afterAll(() => Promise.all(started.map((s) => s.close())));

  it('a crash mid-call fails the call and the lease with one line (and stderr); the next case gets a new server, which a message over the byte limit stops', async () => {
    const s = src('tools', { maxMessageBytes: 1024 * 1024 });
    const lease = await s.acquire(RUN);
    const pid = Number(await call(lease, 'pid'));
    await expect(call(lease, 'crash')).rejects.toThrow(/^mcp server 'hostile-tools': (exited|closed the connection)/);
    expect(lease.failure()).toMatch(/stderr: hostile: crashing now$/);
    expect(lease.failure()).not.toContain('\n');
    expect(await gone(pid)).toBe(true);
    const next = await s.acquire(RUN);
    expect(next.failure()).toBeUndefined();
    const nextPid = Number(await call(next, 'pid'));
    expect(nextPid).not.toBe(pid);
    await expect(call(next, 'flood')).rejects.toThrow(/^mcp server 'hostile-tools': /);
    expect(next.failure()).toMatch(/1048576/);
    expect(await gone(nextPid)).toBe(true);
  });

  it('a call over its timeout is the server hung', async () => {
    const hang = await src('tools', { callTimeoutMs: 200 }).acquire(RUN);
    await expect(call(hang, 'hang')).rejects.toThrow(
      "mcp server 'hostile-tools': tool 'hang' did not answer within 200 ms",
    );
    expect(hang.failure()).toBe("mcp server 'hostile-tools': tool 'hang' did not answer within 200 ms");
  });

  it('a server that hangs at start, exits at start or lists no tools is one line, and no process is left', async () => {
    const pidFile = join(tempDir('mcp-hang'), 'pid');
    // long enough for a loaded machine to start node and write the pid (a wait, not a timing claim)
    const hang = src('hang-start', { startTimeoutMs: 2000, env: { PID_FILE: pidFile } });
    await expect(hang.acquire(RUN)).rejects.toThrow(
      "mcp server 'hostile-hang-start': did not finish the handshake within the start timeout (2000 ms)",
    );
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
    // a start that failed is not retried: the next case fails at once with the same line
    await expect(hang.acquire(RUN)).rejects.toThrow('did not finish the handshake');
    await expect(src('exit-start').acquire(RUN)).rejects.toThrow(
      /^mcp server 'hostile-exit-start': .*stderr: hostile: refusing to start$/,
    );
    await expect(src('no-tools').acquire(RUN)).rejects.toThrow("mcp server 'hostile-no-tools': lists no tools");
    await expect(mcp({ command: '/nonexistent/mcp-server', name: 'missing' }).acquire(RUN)).rejects.toThrow(
      "mcp server 'missing': could not start",
    );
  });

  it("a server named in the run's mcpServers file is found there; bad options are one line at the call", async () => {
    const file = join(tempDir('mcp-config'), 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { h: { command: process.execPath, args: [SERVER, 'no-tools'] } } }),
    );
    const named = mcp.fromConfig('h');
    started.push(named);
    await expect(named.acquire({ mcpConfig: file } as RunConfig)).rejects.toThrow("mcp server 'h': lists no tools");
    await expect(mcp({ server: 'h' }).acquire(RUN)).rejects.toThrow(
      "mcp: server 'h' is named, but no config file says what it is",
    );
    expect(() => mcp({ command: '' })).toThrow(/^mcp\(\): command: /);
    expect(() => mcp({ command: 'x', perCase: 'sometimes' } as never)).toThrow(/^mcp\(\): /);
  });
});

describe('a describeEval over the hostile server, answered by the simulator', () => {
  it("a crash is that case's harness error, the other case is scored; results that echo the run's key are redacted; the server is gone after the run", async () => {
    const KEY = 'sk-run-secret-4f9a8b7c6d';
    const pidFile = join(tempDir('mcp-run-pid'), 'pid');
    const def = evalSuite('mcp-hostile', {
      data: () => [
        { id: 'crash', input: 'crash it', expected: 'x', expectedTools: [{ name: 'crash', arguments: {} }] },
        {
          id: 'key',
          input: 'the key',
          expected: 'done',
          expectedTools: [{ name: 'env', arguments: { name: 'RUN_KEY' } }],
        },
      ],
      tools: [hostile('tools', { env: { RUN_KEY: KEY, PID_FILE: pidFile } })],
      task: toolLoop({ maxTurns: 3 }),
      scorers: [scorers.answerMatches(), scorers.toolCalls()],
    });
    const out = tempDir('mcp-hostile-run');
    const r = await runSuite(
      def,
      { TOOLGAUGE_MODEL: 'sim:oracle', TOOLGAUGE_OUT_DIR: out, OPENAI_API_KEY: KEY },
      { concurrency: 1 },
    );
    const byId = Object.fromEntries(r.metas.map((m) => [m.id, m]));
    expect(byId.crash!.error).toMatch(
      /^Error: mcp server 'hostile-tools': (exited|closed the connection).*crashing now$/,
    );
    expect(byId.key!.error).toBeNull();
    expect(byId.key!.pass).toBe(true);
    expect(r.finalized.harnessErrors).toBe(1);
    const trace = readFileSync(join(r.outDir, byId.key!.trace!), 'utf8');
    expect(trace).toContain('value: [REDACTED]');
    expect(trace).not.toContain(KEY);
    // what the client changed in the server's offer is in every case's trace
    expect(JSON.parse(trace).toolNotes).toHaveLength(2);
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });
});
