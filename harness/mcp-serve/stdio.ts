// stdio: one client, one session, one world, for as long as the client keeps the pipe open.

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { toolServer, type ServerInfo } from './server.ts';
import type { CallLog, ServedWorld } from './world.ts';

/** Serve `world` on this process's stdin/stdout; resolves when the client closes the connection. */
export async function serveStdio(world: ServedWorld, info: ServerInfo, log: CallLog): Promise<void> {
  const transport = new StdioServerTransport();
  const server = toolServer(world, info, log, () => 'stdio');
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
