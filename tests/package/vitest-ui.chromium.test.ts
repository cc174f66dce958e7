import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatBody, SimReply } from '../../harness/api/index.ts';
import { fromRoot } from '../../harness/core/paths.ts';
import { startSimServer, type SimServer } from '../../harness/sim/server.ts';
// @ts-expect-error a plain JavaScript module (scripts/ is not type-checked)
import { freshProject } from '../../scripts/fresh-project.mjs';
import { CHROMIUM, launchChromium, type Browser } from '../helpers/chromium.ts';
import { packed } from './pack.ts';
import { cleanEnv, tempDir } from '../helpers/cli.ts';

// What docs/eval.md promises: `npx vitest --ui` in a project with toolgauge's eval configuration lists a failing case,
// and its report shows the readable transcript. A real Vitest UI on loopback, opened in headless Chromium: the
// transcript's text is in the page, on screen (it paints pixels), and the Download link gives the same text.

/** Uses the tools, but answers additions one off: `add-1` fails after a tool call. */
function sloppyArithmetic(body: ChatBody): SimReply {
  const user = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
  const [, a, op, b] = /(\d+)\s+(times|plus)\s+(\d+)/.exec(user) ?? [];
  const result = body.messages.find((m) => m.role === 'tool');
  if (result)
    return { content: `It is <answer>${op === 'plus' ? Number(result.content) + 1 : result.content}</answer>.` };
  const name = op === 'times' ? 'multiply' : 'add';
  return {
    content: null,
    tool_calls: [
      { id: 'c1', type: 'function', function: { name, arguments: JSON.stringify({ a: Number(a), b: Number(b) }) } },
    ],
  };
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
  const port = (srv.address() as { port: number }).port;
  await new Promise((res) => srv.close(res));
  return port;
}

/** Resolves when `pattern` appears in the process's stdout; rejects after `ms` with what it printed. */
function waitForOutput(p: ResultPromise, pattern: RegExp, ms: number): Promise<void> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${ms} ms; output:\n${seen.slice(-2000)}`)),
      ms,
    );
    const on = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        p.stdout?.off('data', on);
        resolve();
      }
    };
    p.stdout?.on('data', on);
    void p.then(() => reject(new Error(`Vitest exited early:\n${seen.slice(-2000)}`)));
  });
}

let sim: SimServer | undefined;
let ui: ResultPromise | undefined;
let browser: Browser | undefined;
let dir: string;
let url: string;

describe.skipIf(!CHROMIUM)(
  "the Vitest UI shows a failing case's transcript (needs Debian chromium: scripts/install-system-deps.sh)",
  () => {
    beforeAll(async () => {
      sim = await startSimServer({ responders: { arith: { chat: (_s, body) => sloppyArithmetic(body) } } });
      // toolgauge installed from the packed tarball, with the example eval of docs/eval.md and its Vitest configuration.
      dir = freshProject(tempDir('vitest-ui'), { type: 'module', ...(await packed()) }) as string;
      writeFileSync(join(dir, 'arith.eval.ts'), readFileSync(fromRoot('examples', 'arith', 'arith.eval.ts'), 'utf8'));
      writeFileSync(
        join(dir, 'vitest.config.ts'),
        readFileSync(fromRoot('examples', 'arith', 'vitest.config.ts'), 'utf8'),
      );
      const port = await freePort();
      url = `http://127.0.0.1:${port}/__vitest__/`;
      // No terminal and no `--watch`: `evalConfig` keeps the UI serving (docs/eval.md, "The files and commands").
      ui = execa(
        'node',
        [
          join(dir, 'node_modules', 'vitest', 'vitest.mjs'),
          '--ui',
          '--open=false',
          '--api.host=127.0.0.1',
          `--api.port=${port}`,
          '--api.strictPort',
        ],
        {
          cwd: dir,
          env: cleanEnv({ OPENAI_BASE_URL: sim.url, TOOLGAUGE_MODEL: 'arith-model' }),
          extendEnv: false,
          reject: false,
          detached: true,
          stdin: 'ignore',
        },
      );
      // The toolgauge summary ends the run: every test has its result in the UI by then.
      await waitForOutput(ui, /report: .*report\.md/, 90_000);
      browser = launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      if (ui?.pid && ui.exitCode === null) {
        try {
          process.kill(-ui.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await ui?.catch(() => undefined);
      await sim?.close();
    });

    it('its report lists the transcript as text, visible on screen, and the Download link holds the same text', async () => {
      const page = await browser!.open(url);
      const item = `document.querySelector('[data-testid="explorer-item"][aria-label="arith › add-1"]')`;
      await browser!.waitFor(page, item);
      await browser!.evaluate(page, `${item}.click()`);
      // The "Test Meta" entry named `transcript`: its value block, once the report is shown.
      const block = `[...document.querySelectorAll('div')].find((d) => d.textContent === 'transcript')?.nextElementSibling`;
      const text = await browser!.waitFor<string>(page, `(${block})?.innerText`);
      // The case (question, the tool call with its arguments and result, the wrong answer) as this test's model played it.
      expect(text).toContain('What is 19 plus 23?');
      expect(text).toMatch(/add.*"a":\s*19.*"b":\s*23/);
      expect(text).toMatch(/\b42\b/);
      expect(text).toContain('<answer>43</answer>');
      expect(text).toContain('expected: "42"');

      // On screen: inside the viewport, not hidden, and its text paints pixels (the same clip without the text differs).
      const box = await browser!.evaluate<{
        x: number;
        y: number;
        width: number;
        height: number;
        visible: boolean;
        vw: number;
        vh: number;
      }>(
        page,
        `(() => { const el = ${block}; el.scrollIntoView({ block: 'start' }); const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
        return { x: r.x, y: r.y, width: r.width, height: r.height, visible: s.visibility === 'visible' && s.display !== 'none' && Number(s.opacity) > 0, vw: innerWidth, vh: innerHeight }; })()`,
      );
      expect(box.visible).toBe(true);
      expect(box.width).toBeGreaterThan(100);
      expect(box.height).toBeGreaterThan(40);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(box.vw);
      expect(box.y + Math.min(box.height, 100)).toBeLessThanOrEqual(box.vh);
      const clip = { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, box.vh - box.y), scale: 1 };
      const shot = async (c?: typeof clip) =>
        Buffer.from(
          (
            await browser!.send<{ data: string }>(
              'Page.captureScreenshot',
              { format: 'png', ...(c ? { clip: c } : {}) },
              page,
            )
          ).data,
          'base64',
        );
      const screen = await shot();
      writeFileSync(join(dir, 'vitest-ui-transcript.png'), screen);
      expect(screen.subarray(1, 4).toString()).toBe('PNG');
      expect([screen.readUInt32BE(16), screen.readUInt32BE(20)]).toEqual([box.vw, box.vh]);
      const withText = await shot(clip);
      await browser!.evaluate(page, `(${block}).style.color = 'transparent'`);
      const withoutText = await shot(clip);
      expect(withText.equals(withoutText)).toBe(false);

      // The annotation's Download link: a plain-text data URL of the same transcript (not base64 of a non-base64 string).
      const href = await browser!.evaluate<string>(
        page,
        `[...document.querySelectorAll('a[download]')].find((a) => a.textContent.includes('Download'))?.href ?? ''`,
      );
      expect(href.startsWith('data:text/plain,')).toBe(true);
      expect(decodeURIComponent(href.slice('data:text/plain,'.length))).toBe(text.trim());
    });
  },
);
