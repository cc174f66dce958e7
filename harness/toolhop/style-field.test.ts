import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../core/config.ts';
import type { RunContext } from '../kit/types.ts';
import { FILES } from './output.ts';
import { readToolhopSettings, type ToolhopSettings } from './settings.ts';
import { toolhopSuite } from './suite.ts';

// The reference's run_one writes `"style": style` into every results line, the same string its run_batch names the
// output folder by. Oracle: the reference's style strings, written out by hand (as grid.test.ts does).
describe("a results line's style is the cell's folder name, as the reference writes it", () => {
  it.each([
    [{}, 'single_langgraph'],
    [{ TOOLHOP_TOPOLOGY: 'independent' }, 'independent_langgraph'],
    [{ TOOLHOP_TOPOLOGY: 'sequential', TOOLHOP_TEAM_SIZE: '8' }, 'sequential_toolhop_r8'],
    [
      { TOOLHOP_TOPOLOGY: 'centralized', TOOLHOP_COMM: 'structured' },
      'centralized_langgraph_communications_structured_soft',
    ],
  ])('%j → %s', async (env, style) => {
    const settings = readToolhopSettings(env);
    const run = { model: 'sim:oracle' } as RunConfig;
    // An invalid row runs without a model or a sandbox, so only the line's own fields are exercised here.
    const ctx = {
      run,
      settings,
      trial: 0,
      outDir: '.',
      client: () => ({}),
      sandbox: () => ({}),
      sampling: () => ({}),
      tracePath: (id: string, _trial: number, ext = 'json') => `traces/${id}.${ext}`,
    } as unknown as RunContext<ToolhopSettings>;
    const out = await toolhopSuite.run({ ok: false, index: 0, id: '7', error: 'bad row' }, ctx);
    const line = out.records?.[FILES.results] as { style?: string };
    expect(basename(toolhopSuite.outDir(run, settings))).toBe(style);
    expect(line.style).toBe(style);
  });
});
