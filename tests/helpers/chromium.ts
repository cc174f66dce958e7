import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** Debian's Chromium (scripts/install-system-deps.sh installs it); tests that need it skip visibly without it. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);

/** Headless, no network beyond what a page asks for, no first-run or background work; a throwaway profile. */
export function chromiumFlags(profileDir: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profileDir}`,
  ];
}

/**
 * A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: fd 3 in, fd 4 out,
 * NUL-separated JSON), so no debugging port is opened at all. Every command has a time limit; close() kills the
 * browser and removes its profile.
 */
export interface Browser {
  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<T>;
  /** Open `url` in a new page and return the page's session. */
  open(url: string, size?: { width: number; height: number }): Promise<string>;
  /** Evaluate an expression in the page and return its value (JSON-serializable). */
  evaluate<T>(sessionId: string, expression: string): Promise<T>;
  /** Poll `expression` until it is truthy, or fail after `timeoutMs` with the last value. */
  waitFor<T>(sessionId: string, expression: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export function launchChromium(timeoutMs = 20_000): Browser {
  if (!CHROMIUM) throw new Error('no Chromium');
  const profile = mkdtempSync(join(tmpdir(), 'tg-chromium-'));
  const child: ChildProcess = spawn(CHROMIUM, [...chromiumFlags(profile), '--remote-debugging-pipe', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const input = child.stdio[3] as Writable;
  const output = child.stdio[4] as Readable;
  let nextId = 1;
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let end: number;
    while ((end = buffered.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buffered.slice(0, end)) as { id?: number; result?: unknown; error?: { message: string } };
      buffered = buffered.slice(end + 1);
      const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (!p) continue;
      pending.delete(msg.id!);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new Error(msg.error.message));
      else p.resolve(msg.result);
    }
  });
  const failAll = (why: string) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.reject(new Error(why));
      pending.delete(id);
    }
  };
  child.on('exit', () => failAll('Chromium exited'));
  child.on('error', (e) => failAll(`Chromium: ${e.message}`));
  output.on('error', () => undefined);
  input.on('error', () => undefined);

  const browser: Browser = {
    send<T>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`Chromium: ${method} took over ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
        input.write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
      });
    },
    async open(url, size = { width: 1400, height: 1000 }) {
      const { targetId } = await browser.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await browser.send<{ sessionId: string }>('Target.attachToTarget', {
        targetId,
        flatten: true,
      });
      await browser.send(
        'Emulation.setDeviceMetricsOverride',
        { ...size, deviceScaleFactor: 1, mobile: false },
        sessionId,
      );
      await browser.send('Page.navigate', { url }, sessionId);
      return sessionId;
    },
    async evaluate<T>(sessionId: string, expression: string): Promise<T> {
      const r = await browser.send<{ result: { value?: T }; exceptionDetails?: { text: string } }>(
        'Runtime.evaluate',
        { expression, returnByValue: true, awaitPromise: true },
        sessionId,
      );
      if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.text}`);
      return r.result.value as T;
    },
    async waitFor<T>(sessionId: string, expression: string, waitMs = timeoutMs): Promise<T> {
      const until = Date.now() + waitMs;
      let last: T | undefined;
      for (;;) {
        last = await browser.evaluate<T>(sessionId, expression).catch(() => undefined);
        if (last) return last;
        if (Date.now() > until) throw new Error(`the page never satisfied ${expression} within ${waitMs} ms`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async close() {
      failAll('closed');
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        // The whole process group: renderer and helper processes still write into the profile after the browser dies.
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
        await exited;
      }
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
  return browser;
}
