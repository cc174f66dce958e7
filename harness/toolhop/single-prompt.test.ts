import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTPUT_CONTRACT, systemPrompt, withOutputContract } from './prompts.ts';
import { singlePrompt } from './run-instance.ts';
import { tempDir } from '../../tests/helpers/temp-dirs.ts';

describe('the single agent reads its role prompt from a file', () => {
  it('the bundled single/solver.txt gives the same system prompt as before it was a file', () => {
    const bundled = singlePrompt(undefined);
    expect(bundled.source.solver).toMatch(/prompts[/\\]single[/\\]solver\.txt$/);
    // The wording the reference runner used for the single style, written out here (not read from the module).
    const expected =
      "You are solving ToolHop, a multi-hop tool-use benchmark. Use the provided tools to answer the user's question. " +
      'Keep intermediate reasoning concise. Use tool outputs to continue the chain. The final response must be short.\n\nImplementation style: single.';
    expect(bundled.text.solver).toBe(expected);
    expect(withOutputContract(bundled.text.solver!)).toBe(systemPrompt('single', { withContract: true }));
    expect(withOutputContract('x').startsWith(OUTPUT_CONTRACT)).toBe(true);
  });

  it("a prompts folder in toolgauge's or the reference layout replaces it", () => {
    const own = tempDir('single-own');
    mkdirSync(join(own, 'single'));
    writeFileSync(join(own, 'single', 'solver.txt'), 'Own words.\n');
    expect(singlePrompt(own).text.solver).toBe('Own words.');
    const ref = tempDir('single-ref');
    mkdirSync(join(ref, 'single', 'toolhop'), { recursive: true });
    writeFileSync(join(ref, 'single', 'toolhop', 'solver.txt'), 'Reference words.');
    expect(singlePrompt(ref).text.solver).toBe('Reference words.');
    // A folder without a single prompt falls back to the bundled one.
    expect(singlePrompt(tempDir('single-none')).text.solver).toBe(singlePrompt(undefined).text.solver);
  });
});
