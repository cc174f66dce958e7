import { fileURLToPath } from 'node:url';
import { MODULE_EXT } from '../core/paths.ts';
import type { Vitest } from 'vitest/node';

/** The part of a Vite plugin Vitest calls (typed here so the library does not depend on Vite's types). */
export interface VitestPlugin {
  name: string;
  configureVitest(ctx: { vitest: Vitest }): void;
}

/** The toolgauge reporter's module (Vitest loads reporters by path). */
export const REPORTER_PATH = fileURLToPath(new URL(`../../reporters/toolgauge${MODULE_EXT}`, import.meta.url));

/**
 * Keeps toolgauge's reporter registered next to whatever reporters the user asks for: `--reporter=junit` replaces
 * the configured reporters, which would silently drop toolgauge's summary, report and gate (and let a failing gate
 * exit 0). Vitest resolves reporters after `configureVitest`, so adding it back here is enough.
 */
export function toolgaugePlugin(): VitestPlugin {
  return {
    name: 'toolgauge',
    configureVitest({ vitest }) {
      const reporters = vitest.config.reporters as unknown[];
      const has = reporters.some((r) => {
        const name = Array.isArray(r) ? r[0] : r;
        return typeof name === 'string'
          ? name.includes('reporters/toolgauge')
          : !!name && (name as { toolgaugeReporter?: unknown }).toolgaugeReporter === true;
      });
      if (!has) reporters.push([REPORTER_PATH, {}]);
    },
  };
}
