// One MCP server session over a tool world, with the official SDK's low-level Server: tools/list gives the world's
// tools as the in-process loop shows them (name, description, JSON Schema parameters), tools/call runs the world
// and logs the call. The low-level Server (not McpServer) is used so that every call reaches the world — an
// unknown tool or bad arguments are the world's to answer and record, as they are in process.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { resultValue, type CallLog, type ServedWorld } from './world.ts';

/**
 * What toolgauge's own client may add in a call's `_meta`, so the served run's trace matches the in-process one:
 * the agent's call id, and its arguments as the exact text it wrote (text that is no JSON object included).
 */
export const CALL_ID_META = 'toolgauge/call_id';
export const ARGUMENTS_JSON_META = 'toolgauge/arguments_json';

const OwnMeta = z
  .object({ [CALL_ID_META]: z.string().max(256).optional(), [ARGUMENTS_JSON_META]: z.string().optional() })
  .partial();

export interface ServerInfo {
  name: string;
  version: string;
}

/** An MCP server bound to one world; `session` names it in the log. */
export function toolServer(world: ServedWorld, info: ServerInfo, log: CallLog, session: () => string): Server {
  const server = new Server(info, { capabilities: { tools: {} } });
  let calls = 0;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: world.tools().map((t) => ({
      name: t.function.name,
      description: t.function.description ?? '',
      inputSchema: t.function.parameters as { type: 'object'; [k: string]: unknown },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const index = calls++;
    const own = OwnMeta.safeParse(req.params._meta ?? {});
    const meta = own.success ? own.data : {};
    const raw = meta[ARGUMENTS_JSON_META];
    const argumentsJson = raw ?? JSON.stringify(req.params.arguments ?? {});
    const r = await world.call({
      id: meta[CALL_ID_META] ?? `mcp_${index}`,
      name: req.params.name,
      argumentsJson,
    });
    log({
      time: new Date().toISOString(),
      session: session(),
      index,
      tool: req.params.name,
      arguments: raw === undefined ? (req.params.arguments ?? {}) : resultValue(raw),
      result: resultValue(r.content),
      is_error: r.isError,
      ...r.record,
    });
    return { content: [{ type: 'text', text: r.content }], isError: r.isError };
  });
  return server;
}
