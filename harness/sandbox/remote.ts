// A sandbox served over a Unix socket, so one process owns the pool and another calls it. The CLI starts the pool
// before Vitest (its main process serves it): the interpreter boots while Vitest starts its test worker and the
// worker loads the suite, instead of after. One JSON object per line; every answer carries the pool's current stats,
// and answers to `warm` and error answers its info too (info reads /proc, which a tool call need not pay for), so the client's
// synchronous stats() and info() stay current.
//
// Only the run may call it: the socket sits in a private (0700) folder of its own and is itself 0600, and the first
// line of every connection must be the run's random token (`{"hello": TOKEN}`), which the worker gets with the socket
// path; anything else closes the connection unanswered. A socket path longer than the kernel takes (107 bytes) is
// never passed to listen() — Node would cut it and the socket would land elsewhere: a long TMPDIR falls back to /tmp,
// and when that is too long as well the server is refused. The folder records the serving pid, so a folder left by a
// killed run is removed at the next start (one of an older version, without a pid, when nothing listens on its
// socket), and a live run's never is.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { timerMs } from '../core/config.ts';
import { routeOf } from './auto.ts';
import type { RowRoute, Sandbox, SandboxBackend, SandboxInfo, ToolOutcome, ToolRef } from './index.ts';

/** Longest line either side holds (a tool answer is bounded far below this by the pool). */
const MAX_LINE = 256 * 2 ** 20;

const ToolRefSchema = z.object({
  rowId: z.union([z.string(), z.number()]),
  index: z.number().int(),
  name: z.string(),
  sources: z.array(z.string()),
});
const RequestSchema = z.discriminatedUnion('op', [
  z.object({
    id: z.number(),
    op: z.literal('call'),
    tool: ToolRefSchema,
    args: z.string(),
    timeoutMs: timerMs.optional(),
  }),
  z.object({ id: z.number(), op: z.literal('check'), tool: ToolRefSchema }),
  z.object({ id: z.number(), op: z.literal('route'), tool: ToolRefSchema.pick({ rowId: true, sources: true }) }),
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

/** Where a served sandbox is and the token its connections must present. */
export interface SandboxAddress {
  path: string;
  token: string;
}

export interface SandboxServer extends SandboxAddress {
  /** Stop accepting and drop connections (the sandbox stays open: its owner closes it). */
  close(): Promise<void>;
}

/** Longest first line a connection may send before it has presented the token. */
const HELLO_LINE = 1024;
/** Longest Unix socket path Linux takes (sun_path is 108 bytes with its NUL); Node cuts a longer one silently. */
export const MAX_SOCKET_PATH = 107;
const PREFIX = 'tg-sbx-';
/** A folder with neither a pid file nor a socket is being made (or was left half made): removed only when this old. */
const UNMARKED_STALE_MS = 24 * 3600_000;

/**
 * A fresh private folder for the socket, in the temporary folder or, when the socket path would be too long
 * there, in /tmp; refused when it is too long in both. Stale folders of dead runs in those places go first.
 */
export async function socketFolder(
  bases: readonly string[] = [tmpdir(), '/tmp'],
): Promise<{ dir: string; path: string }> {
  for (const base of new Set(bases)) {
    // mkdtemp adds 6 characters; the socket is `/s` inside.
    if (Buffer.byteLength(join(base, `${PREFIX}XXXXXX`, 's')) > MAX_SOCKET_PATH) continue;
    await removeStaleFolders(base);
    const dir = mkdtempSync(join(base, PREFIX)); // 0700
    writeFileSync(join(dir, 'pid'), String(process.pid), { mode: 0o600, flag: 'wx' });
    return { dir, path: join(dir, 's') };
  }
  throw new Error(
    `no folder for the sandbox socket: its path would exceed ${MAX_SOCKET_PATH} bytes in ${[...new Set(bases)].join(' and ')} (set TMPDIR to a shorter folder)`,
  );
}

/**
 * Remove this user's `tg-sbx-*` folders in `base` whose server is gone: the pid it records is dead, or (a folder
 * without a pid, from an older version) nothing listens on its socket. A live run's folder is never removed.
 */
export async function removeStaleFolders(base: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => n.startsWith(PREFIX));
  } catch {
    return removed;
  }
  for (const name of names) {
    const dir = join(base, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || st.uid !== process.getuid?.()) continue;
      if (!(await stale(dir, st.mtimeMs, now))) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // raced with its owner or another run: leave it
    }
  }
  return removed;
}

async function stale(dir: string, mtimeMs: number, now: number): Promise<boolean> {
  let pid: number | null = null;
  try {
    pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
  } catch {
    pid = null;
  }
  if (pid !== null) return Number.isInteger(pid) && pid > 0 && !alive(pid);
  const socket = join(dir, 's');
  if (lstatSync(socket, { throwIfNoEntry: false })?.isSocket()) return !(await listening(socket));
  return now - mtimeMs > UNMARKED_STALE_MS;
}

/** Whether something accepts connections on the socket (only a refused connection counts as nothing). */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code !== 'ECONNREFUSED'));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `given` is the token (constant time). */
function tokenMatches(given: unknown, token: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Serve `sandbox` on a fresh 0600 socket in a private (0700) temporary folder, to connections that know the token. */
export async function serveSandbox(sandbox: Sandbox, opts: { bases?: readonly string[] } = {}): Promise<SandboxServer> {
  const { dir, path } = await socketFolder(opts.bases);
  const token = randomBytes(32).toString('hex');
  const sockets = new Set<Socket>();
  const answer = async (line: string) => {
    let id = -1;
    try {
      const raw: unknown = JSON.parse(line);
      // The id first, so a request refused by the schema (a timeout beyond Node's timers) still gets its answer.
      if (raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'number')
        id = (raw as { id: number }).id;
      const req = RequestSchema.parse(raw);
      const value =
        req.op === 'call'
          ? await sandbox.call(
              req.tool,
              req.args,
              req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : undefined,
            )
          : req.op === 'check'
            ? await sandbox.checkLoad(req.tool)
            : req.op === 'route'
              ? await routeOf(sandbox, req.tool)
              : await sandbox.warm();
      return {
        id,
        ok: true,
        value: value ?? null,
        stats: sandbox.stats(),
        ...(req.op === 'warm' ? { info: sandbox.info() } : {}),
      };
    } catch (err) {
      return {
        id,
        ok: false,
        error: err instanceof Error ? err.message : String(err),
        stats: sandbox.stats(),
        info: sandbox.info(),
      };
    }
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let greeted = false;
    readLines(
      socket,
      (line) => {
        if (socket.destroyed) return; // lines already read after a refusal
        if (!greeted) {
          // The first line is the token; a connection without it gets nothing and is closed.
          greeted = tokenMatches((safeJson(line) as { hello?: unknown } | null)?.hello, token);
          if (!greeted) socket.destroy();
          return;
        }
        void answer(line).then((out) => socket.writable && socket.write(`${JSON.stringify(out)}\n`));
      },
      () => (greeted ? MAX_LINE : HELLO_LINE),
    );
  });
  server.unref(); // the run's end, not this server, decides when the process exits
  try {
    await new Promise<void>((res, rej) => {
      server.once('error', rej);
      server.listen(path, () => res());
    });
    // The folder is already private; the socket itself is too, whatever the umask.
    chmodSync(path, 0o600);
    if (!lstatSync(path).isSocket()) throw new Error(`the sandbox socket is not at ${path}`);
  } catch (err) {
    server.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    path,
    token,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Sandbox whose pool lives in the process serving `path` (the connection presents `token` first). Answers may come in any order (matched by id); when the
 * connection is lost, pending and later calls end as `crash` outcomes naming the cause. close() only disconnects.
 */
export function connectSandbox({ path, token }: SandboxAddress, backend: SandboxBackend): Sandbox {
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
    s.write(`${JSON.stringify({ hello: token })}\n`);
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
        return (await request({
          op: 'call',
          tool,
          args: argumentsJson,
          ...(opts?.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
        })) as ToolOutcome;
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
    async route(tool) {
      // The serving process decides (it holds the pools and asks CPython); a lost server is the run's harness error.
      return (await request({ op: 'route', tool: { rowId: tool.rowId, sources: tool.sources } })) as RowRoute;
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

/** Call `onLine` for each newline-terminated line; a line longer than `max()` ends the connection. */
function readLines(socket: Socket, onLine: (line: string) => void, max: () => number = () => MAX_LINE): void {
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
    if (buffered.length > max()) socket.destroy(new Error(`line longer than ${max()} bytes`));
  });
}
