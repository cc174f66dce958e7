// A sandbox served over a Unix socket, so one process owns the pool and another calls it. The CLI starts the pool
// before Vitest (its main process serves it): the interpreter boots while Vitest starts its test worker and the
// worker loads the suite, instead of after. One JSON object per line; every answer carries the pool's current stats,
// and answers to `warm` and error answers its info too (info reads /proc, which a tool call need not pay for), so the client's
// synchronous stats() and info() stay current.
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { timerMs } from '../core/config.ts';
import type { Sandbox, SandboxBackend, SandboxInfo, ToolOutcome, ToolRef } from './index.ts';

/** Longest line either side holds (a tool answer is bounded far below this by the pool). */
const MAX_LINE = 256 * 2 ** 20;

const ToolRefSchema = z.object({ rowId: z.union([z.string(), z.number()]), index: z.number().int(), name: z.string(), sources: z.array(z.string()) });
const RequestSchema = z.discriminatedUnion('op', [
  z.object({ id: z.number(), op: z.literal('call'), tool: ToolRefSchema, args: z.string(), timeoutMs: timerMs.optional() }),
  z.object({ id: z.number(), op: z.literal('check'), tool: ToolRefSchema }),
  z.object({ id: z.number(), op: z.literal('warm') }),
]);
const AnswerSchema = z.object({
  id: z.number(),
  ok: z.boolean(),
  value: z.unknown().optional(),
  error: z.string().optional(),
  stats: z.looseObject({}),
  info: z.looseObject({}).optional(),
});
type Stats = ReturnType<Sandbox['stats']>;

export interface SandboxServer {
  /** The socket clients connect to. */
  path: string;
  /** Stop accepting and drop connections (the sandbox stays open: its owner closes it). */
  close(): Promise<void>;
}

/** Serve `sandbox` on a fresh socket in a private (0700) temporary folder. */
export async function serveSandbox(sandbox: Sandbox): Promise<SandboxServer> {
  const dir = mkdtempSync(join(tmpdir(), 'tg-sbx-'));
  const path = join(dir, 's');
  const sockets = new Set<Socket>();
  const answer = async (line: string) => {
    let id = -1;
    try {
      const raw: unknown = JSON.parse(line);
      // The id first, so a request refused by the schema (a timeout beyond Node's timers) still gets its answer.
      if (raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'number') id = (raw as { id: number }).id;
      const req = RequestSchema.parse(raw);
      const value =
        req.op === 'call'
          ? await sandbox.call(req.tool, req.args, req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : undefined)
          : req.op === 'check'
            ? await sandbox.checkLoad(req.tool)
            : await sandbox.warm();
      return { id, ok: true, value: value ?? null, stats: sandbox.stats(), ...(req.op === 'warm' ? { info: sandbox.info() } : {}) };
    } catch (err) {
      return { id, ok: false, error: err instanceof Error ? err.message : String(err), stats: sandbox.stats(), info: sandbox.info() };
    }
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    readLines(socket, (line) => void answer(line).then((out) => socket.writable && socket.write(`${JSON.stringify(out)}\n`)));
  });
  server.unref(); // the run's end, not this server, decides when the process exits
  await new Promise<void>((res, rej) => {
    server.once('error', rej);
    server.listen(path, () => res());
  });
  return {
    path,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Sandbox whose pool lives in the process serving `path`. Answers may come in any order (matched by id); when the
 * connection is lost, pending and later calls end as `crash` outcomes naming the cause. close() only disconnects.
 */
export function connectSandbox(path: string, backend: SandboxBackend): Sandbox {
  let socket: Socket | null = null;
  let lost: string | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let stats: Stats = { workers: 0, starts: 0, restarts: 0, calls: 0, recycled: 0 };
  let info: SandboxInfo = { backend, confinement: [], workerPids: [], lastReady: null, peakRssBytes: 0 };

  const fail = (why: string) => {
    lost ??= why;
    for (const p of pending.values()) p.reject(new Error(lost));
    pending.clear();
  };
  const connection = () => {
    if (socket) return socket;
    const s = createConnection(path);
    s.on('error', (err) => fail(`sandbox server ${path}: ${err.message}`));
    s.on('close', () => fail(`sandbox server ${path} closed the connection`));
    readLines(s, (line) => {
      const parsed = AnswerSchema.safeParse(safeJson(line));
      if (!parsed.success) return fail(`sandbox server ${path} sent a malformed answer`);
      const a = parsed.data;
      stats = a.stats as Stats;
      if (a.info) info = a.info as unknown as SandboxInfo;
      const p = pending.get(a.id);
      pending.delete(a.id);
      if (pending.size === 0) s.unref(); // an idle connection does not keep the process alive
      if (!p) return;
      if (a.ok) p.resolve(a.value);
      else p.reject(new Error(a.error ?? 'sandbox server error'));
    });
    return (socket = s);
  };
  const request = (req: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      if (lost) return reject(new Error(lost));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      const s = connection();
      s.ref();
      s.write(`${JSON.stringify({ ...req, id })}\n`);
    });
  return {
    backend,
    async call(tool: ToolRef, argumentsJson: string, opts?: { timeoutMs?: number }): Promise<ToolOutcome> {
      const started = performance.now();
      try {
        return (await request({ op: 'call', tool, args: argumentsJson, ...(opts?.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) })) as ToolOutcome;
      } catch (err) {
        return { kind: 'crash', message: (err as Error).message, durationMs: performance.now() - started };
      }
    },
    async checkLoad(tool) {
      try {
        return (await request({ op: 'check', tool })) as { ok: true } | { ok: false; message: string };
      } catch (err) {
        return { ok: false, message: `crash: ${(err as Error).message}` };
      }
    },
    async warm() {
      await request({ op: 'warm' });
    },
    stats: () => stats,
    info: () => info,
    async close() {
      socket?.destroy();
      socket = null;
      fail('sandbox client closed');
    },
  };
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}

/** Call `onLine` for each newline-terminated line; a line longer than MAX_LINE ends the connection. */
function readLines(socket: Socket, onLine: (line: string) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim()) onLine(line);
    }
    if (buffered.length > MAX_LINE) socket.destroy(new Error(`line longer than ${MAX_LINE} bytes`));
  });
}
