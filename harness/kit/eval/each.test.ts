import { describe, expect, it } from 'vitest';
import { eachName } from './each.ts';

describe('describeEval.each names', () => {
  it('reads object rows by $field (nested too) and leaves an unknown field as written', () => {
    expect(eachName('calc-$op', { op: 'add' }, 0)).toBe('calc-add');
    expect(eachName('m-$cfg.style-$n', { cfg: { style: 'fc' }, n: 3 }, 1)).toBe('m-fc-3');
    expect(eachName('x-$missing', { op: 'add' }, 0)).toBe('x-$missing');
  });

  it('takes printf items in order from an array row, or the row itself; %# is the index, %% a percent', () => {
    expect(eachName('e-%s-%d', ['fc', 2], 0)).toBe('e-fc-2');
    expect(eachName('e-%s_%#', 'prompt', 4)).toBe('e-prompt_4');
    expect(eachName('e-%i-%%', [2.7], 0)).toBe('e-2-%');
    expect(eachName('e-%s-%s', ['only'], 0)).toBe('e-only-%s');
  });
});
