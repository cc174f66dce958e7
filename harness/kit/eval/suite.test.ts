import { describe, expect, it } from 'vitest';
import { readConfig } from '../../core/config.ts';
import { evalSuite } from './suite.ts';

describe('describeEval data', () => {
  it('names a repeated id by the array indices of both rows', async () => {
    const def = evalSuite('dup', {
      data: () => [
        { id: 'a', input: '1' },
        { id: 'b', input: '2' },
        { id: 'c', input: '3' },
        { id: 'b', input: '4' },
      ],
      task: async () => ({}) as never,
      scorers: [],
    });
    const run = readConfig({});
    await expect(Promise.resolve().then(() => def.load(run, def.settings({}, run)))).rejects.toThrow(
      "describeEval dup: data() gives the id 'b' twice (data()[1] and data()[3])",
    );
  });
});
