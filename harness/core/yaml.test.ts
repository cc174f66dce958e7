import { describe, expect, it } from 'vitest';
import { readYaml, YAML_MAX_ALIAS_COUNT, YamlError } from './yaml.ts';

describe('readYaml, the one YAML reader', () => {
  it('reads plain YAML and bounded aliases', () => {
    expect(readYaml('a: &x [1, 2]\nb: *x\n')).toEqual({ a: [1, 2], b: [1, 2] });
  });

  it('refuses an alias bomb, a repeated key and bad syntax with a one-line YamlError', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    for (const text of [`${lines.join('\n')}\n`, 'a: 1\na: 2\n', 'a: [1, 2\n']) {
      let err: unknown;
      try {
        readYaml(text);
      } catch (e) {
        err = e;
      }
      expect(err, text).toBeInstanceOf(YamlError);
      expect((err as Error).message.split('\n'), text).toHaveLength(1);
    }
    expect(YAML_MAX_ALIAS_COUNT).toBe(100);
  });
});
