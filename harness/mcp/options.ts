import { z } from 'zod';

/** How to reach a server: a command on stdio, or a Streamable HTTP URL (the `mcpServers` entry shape). */
export const StdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
export const HttpServerSchema = z.strictObject({
  url: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
});
export type StdioServer = z.infer<typeof StdioServerSchema>;
export type HttpServer = z.infer<typeof HttpServerSchema>;
export type ServerSpec = StdioServer | HttpServer;

/** A config file's `mcpServers`: name → server. Other keys a client keeps there (`type`, `disabled` …) are read loosely. */
export const McpServersFileSchema = z.looseObject({
  mcpServers: z.record(
    z.string(),
    z.union([
      z.looseObject({ command: z.string().min(1) }).transform((s) => StdioServerSchema.parse(pick(s, STDIO_KEYS))),
      z.looseObject({ url: z.string() }).transform((s) => HttpServerSchema.parse(pick(s, HTTP_KEYS))),
    ]),
  ),
});
const STDIO_KEYS = ['command', 'args', 'env', 'cwd'] as const;
const HTTP_KEYS = ['url', 'headers'] as const;
function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** `McpBehaviour` (source.ts) as checked at the call: each field is documented there. */
const BehaviourShape = {
  /** The server's name in errors and notes (default: its `mcpServers` name, else the command or host). */
  name: z.string().min(1).optional(),
  /** Put before each tool's name (`fs_` → `fs_read_file`), to keep two servers' tools apart. */
  prefix: z.string().optional(),
  /** One tool call's limit in ms (default 30000); past it the server counts as hung and the case is a harness error. */
  callTimeoutMs: z.int().min(1).max(2_147_483_647).optional(),
  /** Starting, the handshake and the tool list together, in ms (default 30000). */
  startTimeoutMs: z.int().min(1).max(2_147_483_647).optional(),
  /** A result's text is cut past this many characters, with a marker (default 100000). */
  maxResultChars: z.int().min(1).optional(),
  /** A single protocol message larger than this (stdio, bytes) stops the server (default 10 MiB). */
  maxMessageBytes: z.int().min(1024).optional(),
  /** `share` (default): one server for the run's cases; `restart`: a fresh server for each case. */
  perCase: z.enum(['share', 'restart']).optional(),
  /** Run before each case, on the case's server (e.g. to reset its state). */
  beforeCase: z.custom<(client: unknown) => unknown>((v) => typeof v === 'function').optional(),
};

export const McpOptionsSchema = z.union([
  z.strictObject({ ...StdioServerSchema.shape, ...BehaviourShape }),
  z.strictObject({ ...HttpServerSchema.shape, ...BehaviourShape }),
  z.strictObject({
    /** A server named in the `mcpServers` of a file: `config`, else the run's (`--config`, TOOLGAUGE_MCP_CONFIG). */
    server: z.string().min(1),
    config: z.string().optional(),
    ...BehaviourShape,
  }),
]);

export const DEFAULTS = {
  callTimeoutMs: 30_000,
  startTimeoutMs: 30_000,
  maxResultChars: 100_000,
  maxMessageBytes: 10 * 1024 * 1024,
} as const;
