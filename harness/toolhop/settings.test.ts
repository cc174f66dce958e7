import { describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.ts';
import { readToolhopSettings } from './settings.ts';

describe('ToolHop settings from the environment', () => {
  it('defaults to the reference settings', () => {
    expect(readToolhopSettings({})).toMatchObject({
      limit: 5,
      maxTurns: 9,
      toolResultCharBudget: 6000,
      allowDatasetExec: false,
      topology: 'single',
      ciCluster: 'none',
    });
    expect(readToolhopSettings({ TOOLHOP_ALLOW_DATASET_EXEC: '1' }).allowDatasetExec).toBe(true);
  });
  it('rejects bad values with one line naming the variable', () => {
    expect(() => readToolhopSettings({ TOOLHOP_LIMIT: 'five' })).toThrow(
      new UsageError("TOOLHOP_LIMIT: TOOLHOP_LIMIT must be a whole number (got 'five')"),
    );
    expect(() => readToolhopSettings({ TOOLHOP_TOPOLOGY: 'mesh' })).toThrow(/TOOLHOP_TOPOLOGY/);
  });
  it('refuses team settings on a single agent instead of recording what is not run', () => {
    expect(() => readToolhopSettings({ TOOLHOP_TEAM_SIZE: '5' })).toThrow(/TOOLHOP_TEAM_SIZE.*need a team topology/);
    expect(() => readToolhopSettings({ TOOLHOP_COMM: 'structured' })).toThrow(/TOOLHOP_COMM/);
    expect(readToolhopSettings({ TOOLHOP_TOPOLOGY: 'independent', TOOLHOP_TEAM_SIZE: '5' })).toMatchObject({
      topology: 'independent',
      teamSize: 5,
      rounds: undefined,
    });
  });
});
