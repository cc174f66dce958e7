import type { Vitest } from 'vitest/node';

/** The part of a Vite plugin Vitest calls (typed here so the library does not depend on Vite's types). */
export interface VitestPlugin {
  name: string;
  configureVitest(ctx: { vitest: Vitest }): void;
}

/**
 * Keeps toolgauge's reporter registered next to whatever reporters the user asks for: `--reporter=junit` replaces
 * the configured reporters, which would silently drop toolgauge's summary, report and gate (and let a failing gate
 * exit 0). Vitest resolves reporters after `configureVitest`, so adding it back here is enough. `reporterPath`: the
 * reporter's module (reporters/path.ts), named by the configuration's author (the public API, the CLI).
 */
export function toolgaugePlugin(reporterPath: string): VitestPlugin {
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
      if (!has) reporters.push([reporterPath, {}]);
    },
  };
}
