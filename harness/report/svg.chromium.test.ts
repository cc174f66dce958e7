import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumFlags } from '../../tests/helpers/chromium.ts';
import { barChart } from './svg.ts';

// Chart labels come from data (domains, model names, run labels). Opened in a real browser, the SVG must show them
// as text: no element, script or handler from the data may come alive.

const dir = mkdtempSync(join(tmpdir(), 'tg-svg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!CHROMIUM)(
  'SVG charts in headless Chromium (needs Debian chromium: scripts/install-system-deps.sh)',
  () => {
    it('data in titles, labels and notes stays text', () => {
      const hostile = `</text><script>document.documentElement.setAttribute('data-pwned','1')</script><image href="x" onerror="document.documentElement.setAttribute('data-pwned','2')"/>`;
      const svg = barChart(
        [{ label: hostile, value: 0.5, lo: 0.4, hi: 0.6, n: 10, note: `"><script>alert(1)</script>` }],
        { title: `model ${hostile}`, axisLabel: 'rate & <b>bold</b>' },
      );
      const file = join(dir, 'chart.svg');
      writeFileSync(file, svg);
      const dom = execFileSync(
        CHROMIUM!,
        [...chromiumFlags(join(dir, 'profile')), '--virtual-time-budget=2000', '--dump-dom', `file://${file}`],
        { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      expect(dom).not.toMatch(/<svg[^>]*data-pwned/);
      expect(dom).not.toMatch(/<script|<image|<b>/);
      // The text itself is there, as text.
      expect(dom).toContain('&lt;/text&gt;&lt;script&gt;');
    });
  },
);
