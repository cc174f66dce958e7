// toolgauge's own MCP client for putting a served world in an agent's loop: the tools come from tools/list, every
// call goes out as tools/call with the agent's call id and exact argument text in `_meta` (server.ts), and the
// result's text is what the model sees — the same text the in-process loop hands it.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OpenAITool, ToolExecution, ToolExecutor, ToolInvocation } from '../core/chat.ts';
import { ARGUMENTS_JSON_META, CALL_ID_META } from './server.ts';

export interface McpTools extends ToolExecutor {
  close(): Promise<void>;
}

/** Connect to a Streamable HTTP MCP server and list its tools once (the agent loop asks for them synchronously). */
export async function connectMcpTools(url: string, name = 'toolgauge'): Promise<McpTools> {
  const client = new Client({ name, version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  let tools: OpenAITool[];
  try {
    const listed = await client.listTools();
    tools = listed.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        description: t.description ?? '',
        parameters: t.inputSchema as Record<string, unknown>,
      },
    }));
  } catch (err) {
    await client.close();
    throw err;
  }
  return {
    tools: () => tools,
    async execute(call: ToolInvocation): Promise<ToolExecution> {
      const r = await client.callTool({
        name: call.name,
        arguments: argumentsObject(call.argumentsJson),
        _meta: { [CALL_ID_META]: call.id, [ARGUMENTS_JSON_META]: call.argumentsJson },
      });
      const content = Array.isArray(r.content) ? r.content : [];
      const text = content
        .filter((c): c is { type: 'text'; text: string } => c?.type === 'text' && typeof c.text === 'string')
        .map((c) => c.text)
        .join('\n');
      return { content: text, meta: { transport: 'mcp', is_error: r.isError === true } };
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** MCP arguments are an object: text that is not one goes as `{}` (the exact text travels in `_meta`). */
function argumentsObject(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
