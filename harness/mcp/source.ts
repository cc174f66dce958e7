import { basename, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RunConfig } from '../core/config.ts';
import { UsageError, firstZodIssue } from '../core/errors.ts';
import { registerSecret } from '../core/redact.ts';
import type { EvalToolSource, ToolLease } from '../kit/eval/tool-source.ts';
import type { EvalTool } from '../kit/eval/types.ts';
import { serverFromFile } from './config.ts';
import { McpConnection, type ConnectionOptions } from './connection.ts';
import { DEFAULTS, McpOptionsSchema, type ServerSpec } from './options.ts';
import { toolSpecs } from './tools.ts';

/** What `mcp()` does with a server, besides reaching it (docs/mcp.md, "Options"). */
export interface McpBehaviour {
  /** The server's name in errors, notes and the run's config (default: its mcpServers name, else the command or host). */
  name?: string;
  /** Put before each tool's name (`fs_` → `fs_read_file`); the server still gets its own name. */
  prefix?: string;
  /** One tool call's limit in ms (default 30000): past it the server counts as hung and the case is a harness error. */
  callTimeoutMs?: number;
  /** Starting, the handshake and the tool list together, in ms (default 30000). */
  startTimeoutMs?: number;
  /** A result's text is cut past this many characters, with a marker (default 100000). */
  maxResultChars?: number;
  /** One protocol message over this many bytes (stdio) stops the server (default 10 MiB). */
  maxMessageBytes?: number;
  /** `share` (default): one server for the eval's cases in a worker; `restart`: a fresh server for each case. */
  perCase?: 'share' | 'restart';
  /** Run before each case on the case's server (the SDK's `Client`): reset its state, seed data. */
  beforeCase?: (client: Client) => unknown;
}

/** `mcp()`'s options: how to reach the server (stdio, Streamable HTTP, or a name in a config file), and behaviour. */
export type McpServerOptions =
  | ({ command: string; args?: string[]; env?: Record<string, string>; cwd?: string } & McpBehaviour)
  | ({ url: string; headers?: Record<string, string> } & McpBehaviour)
  | ({ server: string; config?: string } & McpBehaviour);

/** Env and header names whose values are registered as secrets (redacted from every file toolgauge writes). */
const SECRET_NAME = /key|token|secret|pass|auth|cred|cookie/i;

/**
 * An MCP server's tools as a tool source for `describeEval`'s `tools` (docs/mcp.md): the server starts when a case
 * first needs it, its tool list is read once per start, each call goes to it, and it stops when the run ends.
 */
export function mcp(options: McpServerOptions): EvalToolSource {
  const checked = McpOptionsSchema.safeParse(options);
  if (!checked.success) {
    const { field, message } = firstZodIssue(checked.error);
    throw new UsageError(`mcp(): ${field ? `${field}: ` : ''}${message}`);
  }
  const b = options as McpBehaviour;
  const label = `mcp server '${b.name ?? serverName(options)}'`;
  const conn: ConnectionOptions = {
    label,
    startTimeoutMs: b.startTimeoutMs ?? DEFAULTS.startTimeoutMs,
    callTimeoutMs: b.callTimeoutMs ?? DEFAULTS.callTimeoutMs,
    maxResultChars: b.maxResultChars ?? DEFAULTS.maxResultChars,
    maxMessageBytes: b.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
  };
  let spec: ServerSpec | undefined;
  const specOf = (run: RunConfig): ServerSpec => {
    if (spec) return spec;
    spec = 'server' in options ? namedServer(options.server, options.config ?? run.mcpConfig) : options;
    for (const [k, v] of Object.entries({
      ...('env' in spec ? spec.env : {}),
      ...('headers' in spec ? spec.headers : {}),
    }))
      if (SECRET_NAME.test(k)) registerSecret(v);
    return spec;
  };
  // The shared server, started on first use. A start that failed is not tried again (every later case fails at once
  // with its error, in either mode); a shared server that broke later is replaced for the next case.
  let shared: Promise<McpConnection> | undefined;
  let startFailure: Error | undefined;
  const open = new Set<McpConnection>();
  let closed = false;

  const start = async (run: RunConfig): Promise<McpConnection> => {
    if (closed) throw new Error(`${label}: the run has ended`);
    if (startFailure) throw startFailure;
    try {
      const c = await McpConnection.open(specOf(run), conn);
      open.add(c);
      return c;
    } catch (err) {
      startFailure = err as Error;
      throw err;
    }
  };
  const sharedConnection = async (run: RunConfig): Promise<McpConnection> => {
    const pending = shared;
    const current = pending ? await pending : undefined;
    if (current && !current.failure) return current;
    // Concurrent cases that find the same broken server replace it once.
    if (shared === pending) {
      if (current) {
        open.delete(current);
        void current.close();
      }
      shared = start(run);
    }
    return shared!;
  };

  return {
    toolSource: label,
    async acquire(run: RunConfig): Promise<ToolLease> {
      const restart = b.perCase === 'restart';
      const c = restart ? await start(run) : await sharedConnection(run);
      const release = async () => {
        if (!restart) return;
        open.delete(c);
        await c.close();
      };
      try {
        if (b.beforeCase) {
          try {
            await b.beforeCase(c.client);
          } catch (err) {
            throw new Error(`${label}: beforeCase failed: ${(err as Error).message?.split('\n')[0] ?? err}`);
          }
        }
        const { specs, notes } = toolSpecs(label, c.tools, b.prefix);
        const tools: EvalTool[] = specs.map((s) => ({
          name: s.name,
          ...(s.description ? { description: s.description } : {}),
          parameters: s.parameters,
          run: async (args: Record<string, unknown>) => {
            const r = await c.call(s.remote, args);
            if (r.isError) throw new Error(r.text);
            return r.text;
          },
        }));
        return { tools, notes: () => notes, failure: () => c.failure, release };
      } catch (err) {
        await release();
        throw err;
      }
    },
    async close() {
      closed = true;
      await Promise.allSettled([...open].map((c) => c.close()));
      open.clear();
      shared = undefined;
    },
  };
}

/** The server named in a config file's `mcpServers`: `mcp.fromConfig('memory')` is `mcp({ server: 'memory' })`. */
mcp.fromConfig = (server: string, options: McpBehaviour & { config?: string } = {}): EvalToolSource =>
  mcp({ server, ...options });

function namedServer(name: string, config: string | undefined): ServerSpec {
  const file = config;
  if (!file)
    throw new UsageError(
      `mcp: server '${name}' is named, but no config file says what it is (give config: 'FILE', or a --config file with mcpServers)`,
    );
  return serverFromFile(resolve(file), name);
}

/** A short name for errors when none is given: the config name, the script or command, or the URL's host. */
function serverName(o: McpServerOptions): string {
  if ('server' in o) return o.server;
  if ('url' in o) {
    try {
      return new URL(o.url).host;
    } catch {
      return o.url;
    }
  }
  const script = o.args?.find((a) => !a.startsWith('-'));
  return basename(/^(node|npx|tsx|python3?|uvx?|deno|bun)$/.test(basename(o.command)) && script ? script : o.command);
}
