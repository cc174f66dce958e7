// The two halves of a JSON endpoint that toolgauge's loopback servers (the simulator, `toolgauge serve`) share:
// reading a request body and answering with JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The request body as text. Past `max` bytes the promise rejects with `tooLarge()`, and the rest is read and
 * dropped, so that an error answer still reaches the client.
 */
export function readBody(
  req: IncomingMessage,
  max = Number.POSITIVE_INFINITY,
  tooLarge: () => Error = () => new Error(`request body larger than ${max} bytes`),
): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) reject(tooLarge());
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

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
