import { describe, expect, it } from 'vitest';
import { defaultPyodidePool } from './index.ts';

describe('defaultPyodidePool', () => {
  it('one worker per core but one, at least one and at most four', () => {
    expect([1, 2, 3, 5, 8, 64].map((c) => defaultPyodidePool(c))).toEqual([1, 1, 2, 4, 4, 4]);
  });
});
