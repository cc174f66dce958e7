import { describe, expect, it } from 'vitest';
import { RuleSet } from './gbnf.ts';

describe('RuleSet names', () => {
  it('a defined rule is named after its hint, reused for the same body, numbered when the name is taken', () => {
    const r = new RuleSet();
    expect(r.define('get_weather.args', '"a"')).toBe('get-weather-args');
    expect(r.define('other', '"a"')).toBe('get-weather-args');
    expect(r.define('get weather args', '"b"')).toBe('get-weather-args-2');
    expect(r.define('root', '"c"')).toBe('root-2');
    expect(r.define('__', '"d"')).toBe('r');
    expect(r.toGbnf('get-weather-args')).toBe(
      'root ::= get-weather-args\nget-weather-args ::= "a"\nget-weather-args-2 ::= "b"\nroot-2 ::= "c"\nr ::= "d"\n',
    );
  });

  it('a reserved name (a recursive rule) is not given to another rule, and the two kinds share the numbering', () => {
    const r = new RuleSet();
    const node = r.reserve('Node');
    expect(node).toBe('node');
    expect(r.define('node', '"x"')).toBe('node-2');
    expect(r.reserve('node')).toBe('node-3');
    r.fill(node, `"(" ${node}? ")"`);
    expect(r.toGbnf(node)).toBe('root ::= node\nnode-2 ::= "x"\nnode ::= "(" node? ")"\n');
  });
});
