import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { endPidWithHost } from '../core/end-with-host.ts';
import { capText, CallResultSchema, resultText } from './content.ts';
import type { ServerSpec } from './options.ts';
import { ListToolsPageSchema, type ListedTool } from './tools.ts';

/** What a connection is opened with (the options, defaults filled in). */
export interface ConnectionOptions {
  label: string;
  startTimeoutMs: number;
  callTimeoutMs: number;
  maxResultChars: number;
  maxMessageBytes: number;
}

/** The last part of a server's stderr kept for error messages. */
const STDERR_TAIL = 400;
/** Pages of `tools/list` read at most (a server that pages without end is refused). */
const MAX_LIST_PAGES = 100;

/** A call's outcome: the text for the model, and whether the server flagged it an error (`isError`). */
export interface CallOutcome {
  text: string;
  isError: boolean;
}

/**
 * One started server: the SDK's client over stdio or Streamable HTTP, its tool list as read once at start, and
 * `failure` once it has died, overflowed a message or gone silent past a timeout (then every call fails at once).
 */
export class McpConnection {
  failure: string | undefined;
  private closing = false;
  /** The connection (and, on stdio, the process) has ended: its pid may belong to another process by now. */
  private gone = false;
  /** The tool list, read once at start. */
  tools: ListedTool[] = [];
  private stderr = '';

  /** The server process (stdio), once started. */
  pid: number | null = null;
  /** Takes the process off the list of those killed with this one (it has ended, or been closed). */
  private forgetPid: () => void = () => {};

  private constructor(
    readonly client: Client,
    private readonly o: ConnectionOptions,
  ) {}

  /** Starts the server, shakes hands and reads its tool list, all within the start timeout; one-line errors. */
  static async open(spec: ServerSpec, o: ConnectionOptions): Promise<McpConnection> {
    // Loaded on first use: an eval without MCP servers never loads the SDK.
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new Client({ name: 'toolgauge', version: '0' });
    let transport: Transport;
    let stderrOf: (() => NodeJS.ReadableStream | null) | undefined;
    if ('command' in spec) {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const t = new StdioClientTransport({
        command: spec.command,
        ...(spec.args ? { args: spec.args } : {}),
        // The SDK's default environment (PATH, HOME …) plus the server's own: never the run's keys unless given.
        ...(spec.env ? { env: spec.env } : {}),
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
        stderr: 'pipe',
        maxBufferSize: o.maxMessageBytes,
      } as ConstructorParameters<typeof StdioClientTransport>[0]);
      stderrOf = () => t.stderr as NodeJS.ReadableStream | null;
      transport = t;
    } else {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
      transport = new StreamableHTTPClientTransport(new URL(spec.url), {
        ...(spec.headers ? { requestInit: { headers: spec.headers } } : {}),
      });
    }
    const c = new McpConnection(client, o);
    // The process is known (and killed with this one) from its spawn, before the handshake that may never finish.
    const spawn = transport.start.bind(transport);
    transport.start = async () => {
      await spawn();
      c.pid = (transport as { pid?: number | null }).pid ?? null;
      if (c.pid !== null) c.forgetPid = endPidWithHost(c.pid);
    };
    stderrOf?.()?.on('data', (chunk: Buffer) => {
      c.stderr = (c.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    let lastError: string | undefined;
    client.onerror = (err) => {
      // the first error says why; what follows a broken stream is its debris
      lastError ??= err.message.split('\n')[0];
    };
    client.onclose = () => {
      c.gone = true;
      c.forgetPid();
      if (!c.closing)
        c.failure ??= `${o.label}: ${c.withStderr(lastError ? `closed the connection (${lastError})` : 'exited')}`;
    };
    const deadline = Date.now() + o.startTimeoutMs;
    const left = () => Math.max(1, deadline - Date.now());
    const inTime = <T>(p: Promise<T>, what: string) =>
      withTimeout(p, left(), `${what} within the start timeout (${o.startTimeoutMs} ms)`);
    try {
      await inTime(client.connect(transport, { timeout: left() }), 'did not finish the handshake');
      c.tools = await inTime(c.listTools(left), 'did not list its tools');
    } catch (err) {
      await c.close();
      const why = c.failure ?? `${o.label}: ${c.withStderr(startError(err, o.startTimeoutMs))}`;
      throw new Error(why);
    }
    if (!c.tools.length) {
      await c.close();
      throw new Error(`${o.label}: lists no tools`);
    }
    return c;
  }

  /** Every page of `tools/list`, read once per server start. */
  private async listTools(left: () => number): Promise<ListedTool[]> {
    const out: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const r = await this.client.request(
        { method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) },
        ListToolsPageSchema as never,
        { timeout: left() },
      );
      const parsed = ListToolsPageSchema.parse(r);
      out.push(...parsed.tools);
      cursor = parsed.nextCursor;
      if (!cursor) return out;
    }
    throw new Error(`pages its tool list past ${MAX_LIST_PAGES} pages`);
  }

  /**
   * One tool call. A reply within the limits is the model's text; a server that is gone, went silent past the call
   * timeout or sent a reply the protocol does not allow sets `failure` and throws.
   */
  async call(tool: string, args: Record<string, unknown>): Promise<CallOutcome> {
    if (this.failure) throw new Error(this.failure);
    try {
      const r = await this.client.request(
        { method: 'tools/call', params: { name: tool, arguments: args } },
        CallResultSchema as never,
        { timeout: this.o.callTimeoutMs },
      );
      const parsed = CallResultSchema.safeParse(r);
      if (!parsed.success) throw new Error(`tool '${tool}' sent a result that is not a tool result`);
      return { text: resultText(parsed.data, this.o.maxResultChars), isError: parsed.data.isError === true };
    } catch (err) {
      const msg = (err as Error).message.split('\n')[0] ?? '';
      // A protocol-level error reply (e.g. an unknown tool) is the model's to see; anything else breaks the server.
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'number' && !BROKEN.includes(code) && !this.failure)
        return { text: capText(msg, this.o.maxResultChars), isError: true };
      this.failure ??=
        code === -32001
          ? `${this.o.label}: tool '${tool}' did not answer within ${this.o.callTimeoutMs} ms`
          : `${this.o.label}: ${this.withStderr(`failed during a call to '${tool}' (${msg})`)}`;
      throw new Error(this.failure);
    }
  }

  /** The message for a server that stopped, with the tail of what it wrote on stderr. */
  private withStderr(what: string): string {
    const tail = this.stderr.trim().split('\n').slice(-2).join(' | ');
    return tail ? `${what}; stderr: ${tail}` : what;
  }

  /**
   * Closes the client and the process: a healthy server gets the SDK's way (stdin ended, then SIGTERM, then
   * SIGKILL); one that broke or never finished starting is killed at once, since it may not read stdin at all.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    // A server that broke, or never finished its handshake, may not read stdin at all.
    const healthy = this.tools.length > 0 && !this.failure;
    if (!healthy && !this.gone) killQuietly(this.pid);
    try {
      await this.client.close();
    } catch {
      // closing is best effort
    }
    this.forgetPid();
  }
}

function killQuietly(pid: number | null): void {
  if (pid === null) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // exited already
  }
}

/** The SDK's codes for a request that got no reply: the connection closed (-32000), the timeout passed (-32001). */
const BROKEN = [-32000, -32001];

function startError(err: unknown, ms: number): string {
  const e = err as { code?: unknown; message?: string };
  if (e.code === 'ENOENT') return 'could not start (command not found)';
  if (e.code === -32001) return `did not answer within the start timeout (${ms} ms)`;
  const msg = (e.message ?? String(err)).split('\n')[0]!;
  if (msg.includes('within the start timeout')) return msg;
  return `could not start (${msg})`;
}

/** `p`, or a rejection saying what did not happen in time. */
function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}
