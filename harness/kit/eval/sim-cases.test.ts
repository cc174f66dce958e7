import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import { registrationOf, simulatorEndpoint } from './sim-cases.ts';
import { evalSuite } from './suite.ts';

const run = (o: Partial<RunConfig>) => ({ cache: 'off', ...o }) as RunConfig;

describe('which endpoint gets an eval’s cases', () => {
  it('the run’s own simulator, or a loopback --base-url whose models list is the simulator’s; nothing else', () => {
    expect(simulatorEndpoint(run({}), 'http://127.0.0.1:5000/v1')).toBe('http://127.0.0.1:5000/v1');
    expect(simulatorEndpoint(run({ baseUrl: 'http://127.0.0.1:9/v1' }), 'http://127.0.0.1:5000/v1')).toBeUndefined();
    expect(simulatorEndpoint(run({ baseUrl: 'http://localhost:9/v1', endpointSimulated: true }), undefined)).toBe(
      'http://localhost:9/v1',
    );
    expect(
      simulatorEndpoint(run({ baseUrl: 'https://api.example.com/v1', endpointSimulated: true }), undefined),
    ).toBeUndefined();
    expect(simulatorEndpoint(run({}), undefined)).toBeUndefined();
    expect(simulatorEndpoint(run({ cache: 'replay' }), 'http://127.0.0.1:5000/v1')).toBeUndefined();
  });

  it('sends ids, inputs, expected values and expected calls; a predicate by name only, another input not at all', () => {
    const reg = registrationOf([
      { id: 'a', input: 'q', expected: { n: 1 }, expectedTools: [{ name: 'f', arguments: { x: 1 } }] },
      { id: 'b', input: { custom: true }, expectedTools: [{ name: 'g', arguments: () => true }] },
    ]);
    expect(reg).toEqual({
      cases: [
        { id: 'a', input: 'q', expected: { n: 1 }, expectedTools: [{ name: 'f', arguments: { x: 1 } }] },
        { id: 'b', expectedTools: [{ name: 'g' }] },
      ],
    });
  });
});

describe('an eval named like a built-in suite', () => {
  it('is refused with one line', () => {
    const o = { data: () => [], task: () => 'x', scorers: [] };
    for (const name of ['toolhop', 'maze', 'probe', 'bfcl', 'apibank', 'ToolHop']) {
      expect(() => evalSuite(name, o)).toThrow(UsageError);
      expect(() => evalSuite(name, o)).toThrow(
        /^describeEval: '\w+' names the built-in suite '\w+' \(.*\); give the eval another name$/,
      );
    }
    expect(() => evalSuite('toolhop-mine', o)).not.toThrow();
  });
});
