import { readFileSync } from 'node:fs';
import { UsageError, firstZodIssue } from '../core/errors.ts';
import { readJsonOrYaml } from '../core/data-file.ts';
import { McpServersFileSchema, type ServerSpec } from './options.ts';

/**
 * The server `name` of a file's `mcpServers` (the shape MCP clients keep: `{ "mcpServers": { "name": { "command",
 * "args", "env" } | { "url", "headers" } } }`; JSON or YAML). String values may name environment variables as
 * `${VAR}` (or `${VAR:-default}`), so a key in the file can stay in the environment.
 */
export function serverFromFile(
  file: string,
  name: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  read: (f: string) => string = (f) => readFileSync(f, 'utf8'),
): ServerSpec {
  let text: string;
  try {
    text = read(file);
  } catch (err) {
    throw new UsageError(`mcp: cannot read the config file '${file}' (${(err as NodeJS.ErrnoException).code ?? err})`);
  }
  let doc: unknown;
  try {
    doc = readJsonOrYaml(text, file);
  } catch (err) {
    throw new UsageError(`mcp: ${(err as Error).message}`);
  }
  const parsed = McpServersFileSchema.safeParse(doc);
  if (!parsed.success) {
    const { field, message } = firstZodIssue(parsed.error);
    throw new UsageError(`mcp: ${file}: ${field || 'mcpServers'}: ${message}`);
  }
  const spec = parsed.data.mcpServers[name];
  if (!spec)
    throw new UsageError(
      `mcp: ${file} has no server '${name}' in mcpServers (it has: ${Object.keys(parsed.data.mcpServers).join(', ') || 'none'})`,
    );
  return expand(spec, env, `${file}: mcpServers.${name}`) as ServerSpec;
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Every string of the entry with `${VAR}` placeholders filled in from `env`. */
function expand(v: unknown, env: Readonly<Record<string, string | undefined>>, where: string): unknown {
  if (typeof v === 'string')
    return v.replace(PLACEHOLDER, (_, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      throw new UsageError(`mcp: ${where}: environment variable ${name} is not set`);
    });
  if (Array.isArray(v)) return v.map((x) => expand(x, env, where));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x, env, where)]));
  return v;
}
