import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../../core/config.ts';
import { UsageError } from '../../core/errors.ts';
import { connectionLost, registerEvalCases, registrationOf, simulatorEndpoint } from './sim-cases.ts';
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

describe('registering the cases', () => {
  /**
   * A server that drops the connection of the first `drop` requests unanswered, then answers `status` (after
   * `delayMs`).
   */
  async function server(drop: number, status: number, delayMs = 0) {
    let seen = 0;
    const s = createServer((req, res) => {
      seen++;
      if (seen <= drop) return void req.socket.destroy();
      req.resume();
      req.on('end', () =>
        setTimeout(
          () => res.writeHead(status, { 'content-type': 'application/json' }).end('{"eval":"e","cases":1}'),
          delayMs,
        ),
      );
    });
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
    return { url, seen: () => seen, close: () => new Promise<void>((r) => s.close(() => r())) };
  }

  it('is sent again when the connection was closed before any answer, and only then', async () => {
    const cases = registrationOf([{ id: 'a', input: 'q' }]);
    const dropped = await server(2, 200);
    try {
      await registerEvalCases(dropped.url, 'e', cases, 5_000);
      expect(dropped.seen()).toBe(3);
    } finally {
      await dropped.close();
    }
    const gone = await server(10, 200);
    try {
      await expect(registerEvalCases(gone.url, 'e', cases, 5_000)).rejects.toThrow();
      expect(gone.seen()).toBe(4);
    } finally {
      await gone.close();
    }
    const refused = await server(0, 400);
    try {
      await expect(registerEvalCases(refused.url, 'e', cases, 5_000)).rejects.toThrow(
        /refused the eval's cases \(400\)/,
      );
      expect(refused.seen()).toBe(1);
    } finally {
      await refused.close();
    }
    expect(connectionLost(Object.assign(new Error('x'), { cause: { code: 'EPIPE' } }))).toBe(true);
    expect(connectionLost(new Error('timeout'))).toBe(false);
  });

  it("is not held to the run's request timeout: a slow answer (a large part on a busy machine) still registers", async () => {
    const slow = await server(0, 200, 300);
    try {
      // A run whose requests time out after 50 ms: the registration is given REGISTRATION_TIMEOUT_FLOOR_MS.
      await registerEvalCases(slow.url, 'e', registrationOf([{ id: 'a', input: 'q' }]), 50);
      expect(slow.seen()).toBe(1);
    } finally {
      await slow.close();
    }
  });
});
