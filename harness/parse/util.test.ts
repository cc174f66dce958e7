import { describe, expect, it } from 'vitest';
import { END_TOKENS, stripEndTokens } from './util.ts';

describe('stripEndTokens', () => {
  it('every end token ends with `>` (stripEndTokens looks no further when the text ends otherwise)', () => {
    for (const t of END_TOKENS) expect(t.endsWith('>'), t).toBe(true);
  });

  it('removes trailing whitespace and end tokens in any order and number, and nothing else', () => {
    expect(stripEndTokens('call()  <|eot_id|>\n</s> <|im_end|>  ')).toBe('call()');
    expect(stripEndTokens('a <b> ')).toBe('a <b>');
    expect(stripEndTokens('<|eom_id|>')).toBe('');
    expect(stripEndTokens('done.\n')).toBe('done.');
    expect(stripEndTokens('x</s>y')).toBe('x</s>y');
    expect(stripEndTokens('')).toBe('');
  });
});
