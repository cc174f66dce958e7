import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mazeOutDir } from './config.ts';

describe('mazeOutDir', () => {
  it('lays runs out as results/<model>/<fc|mcp>/ (ToolMaze: mcp = prompt-based tool calling), unless --out-dir says otherwise', () => {
    expect(mazeOutDir({ outDir: undefined, model: 'sim:oracle' }, { agent: 'fc' })).toBe(resolve('results', 'sim_oracle', 'fc'));
    expect(mazeOutDir({ outDir: undefined, model: 'org/m-7b' }, { agent: 'prompt' })).toBe(resolve('results', 'org_m-7b', 'mcp'));
    expect(mazeOutDir({ outDir: join('x', 'y'), model: 'm' }, { agent: 'prompt' })).toBe(resolve('x', 'y'));
  });
});
