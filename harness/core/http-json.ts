// Answering with JSON, as toolgauge's loopback servers (the simulator, `toolgauge serve`) do. Reading a request is
// the front's job (http-front.ts).
import type { ServerResponse } from 'node:http';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
