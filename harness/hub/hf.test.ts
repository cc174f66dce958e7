import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureHfFile } from './hf.ts';

// A loopback server that imitates the Hugging Face hub: /datasets/<repo>/resolve/<rev>/<file> redirects to a
// "CDN" path (as the hub does), needs a token, and names the commit in X-Repo-Commit.
const COMMIT = 'a'.repeat(40);
const BODY = JSON.stringify([{ id: 0, question: 'q', answer: 'a' }]);
let server: Server;
let endpoint: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url} auth=${req.headers.authorization ?? ''}`);
    if (
      req.url === `/datasets/bytedance-research/ToolHop/resolve/main/data/ToolHop.json` ||
      req.url === `/datasets/bytedance-research/ToolHop/resolve/${COMMIT}/data/ToolHop.json`
    ) {
      if (req.headers.authorization !== 'Bearer hf_test') return void res.writeHead(401).end('unauthorized');
      return void res.writeHead(302, { location: '/cdn/blob', 'x-repo-commit': COMMIT }).end();
    }
    if (req.url === '/cdn/blob')
      return void res.writeHead(200, { 'content-type': 'application/json', 'x-repo-commit': COMMIT }).end(BODY);
    if (req.url?.includes('/resolve/broken/')) return void res.writeHead(200).end('{"truncated');
    // A hub that starts the body and then goes silent (the connection stays open).
    if (req.url?.includes('/resolve/stalls/')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(600_000) });
      return void res.write(`[${' '.repeat(300_000)}`);
    }
    // A hub that never answers at all.
    if (req.url?.includes('/resolve/silent/')) return;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
});

describe('Hugging Face download into the hub cache', () => {
  it('downloads once with the token, stores it in the hub layout, and reuses the cache without the network', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-hf-'));
    try {
      const first = await ensureHfFile({ revision: 'main', hfHome: home, token: 'hf_test', endpoint });
      expect(first.downloaded).toBe(true);
      expect(first.commit).toBe(COMMIT);
      expect(first.path).toBe(
        join(home, 'hub', 'datasets--bytedance-research--ToolHop', 'snapshots', COMMIT, 'data', 'ToolHop.json'),
      );
      expect(readFileSync(first.path, 'utf8')).toBe(BODY);
      expect(readFileSync(join(home, 'hub', 'datasets--bytedance-research--ToolHop', 'refs', 'main'), 'utf8')).toBe(
        COMMIT,
      );
      const n = hits.length;
      const again = await ensureHfFile({
        revision: 'main',
        hfHome: home,
        token: 'hf_test',
        endpoint: 'http://127.0.0.1:9',
      });
      expect(again).toEqual({ path: first.path, commit: COMMIT, downloaded: false });
      // A pinned commit is served from the same snapshot.
      const pinned = await ensureHfFile({ revision: COMMIT, hfHome: home, endpoint: 'http://127.0.0.1:9' });
      expect(pinned.path).toBe(first.path);
      expect(hits.length).toBe(n);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('explains a 401 (HF_TOKEN), an offline hub, and refuses to cache a broken body', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tg-hf-'));
    try {
      await expect(ensureHfFile({ revision: 'main', hfHome: home, endpoint })).rejects.toThrow(/HTTP 401.*HF_TOKEN/);
      await expect(ensureHfFile({ revision: 'main', hfHome: home, endpoint: 'http://127.0.0.1:9' })).rejects.toThrow(
        /--data FILE/,
      );
      await expect(ensureHfFile({ revision: 'broken', hfHome: home, endpoint })).rejects.toThrow(/not valid JSON/);
      expect(existsSync(join(home, 'hub', 'datasets--bytedance-research--ToolHop', 'refs', 'broken'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('a stalled or silent hub fails after the stall time with a message, after reporting progress; nothing is cached', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hf-stall-'));
    try {
      const progress: Array<[number, number | null]> = [];
      const stalled = await ensureHfFile({
        revision: 'stalls',
        hfHome: home,
        endpoint,
        stallMs: 300,
        onProgress: (got, total) => progress.push([got, total]),
      }).catch((e: Error) => e);
      expect(stalled).toBeInstanceOf(Error);
      expect((stalled as Error).message).toMatch(/no data for 0.3 s\. Offline\? Pass --data FILE/);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress[0]![1]).toBe(600_000);
      const silent = await ensureHfFile({ revision: 'silent', hfHome: home, endpoint, stallMs: 300 }).catch(
        (e: Error) => e,
      );
      expect((silent as Error).message).toMatch(/no answer for 0.3 s/);
      expect(existsSync(join(home, 'hub', 'datasets--bytedance-research--ToolHop', 'snapshots'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
