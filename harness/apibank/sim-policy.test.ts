// The simulator's API-Bank replies, read back with the reference's reading (expected values from the task's data).
import { describe, expect, it } from 'vitest';
import { pyRepr } from '../core/pyliteral/index.ts';
import { extractApiCall, parseApiCall } from './extract.ts';
import { apibankReply } from './sim-policy.ts';
import type { ApibankTask } from './tasks.ts';

const task = (name: string, params: Record<string, unknown>, call: string) =>
  ({
    id: 'x',
    level: '1',
    ground_truth: { role: 'API', api_name: name, param_dict: params, result: {} },
    gold_api_call: call,
  }) as unknown as ApibankTask;

describe('API-Bank simulator policies', () => {
  const t = task(
    'AddAgenda',
    { token: 'abc', content: 'Meet John', time: '2023-03-31 10:00:00' },
    "[AddAgenda(token='abc', content='Meet John', time='2023-03-31 10:00:00')]",
  );
  it('oracle answers the gold call; wrong_name keeps the arguments under another name', () => {
    expect(apibankReply('oracle', t)).toBe(t.gold_api_call);
    const w = parseApiCall(apibankReply('wrong_name', t));
    expect(w.name).not.toBe('AddAgenda');
    expect(w.params.map(([k, v]) => `${k}=${pyRepr(v)}`)).toEqual([
      "token='abc'",
      "content='Meet John'",
      "time='2023-03-31 10:00:00'",
    ]);
  });
  it('wrong_arg changes only the last argument (or adds an unknown one); no_call has no bracketed call', () => {
    const w = parseApiCall(apibankReply('wrong_arg', t));
    expect(w.name).toBe('AddAgenda');
    expect(w.params.slice(0, 2).map(([k, v]) => `${k}=${pyRepr(v)}`)).toEqual(["token='abc'", "content='Meet John'"]);
    expect(pyRepr(w.params[2]![1])).not.toBe("'2023-03-31 10:00:00'");
    expect(
      parseApiCall(apibankReply('wrong_arg', task('GetToday', {}, '[GetToday()]'))).params.map(([k]) => k),
    ).toEqual(['unexpected_argument']);
    const none = apibankReply('no_call', t);
    expect(extractApiCall(none)).toBe(none);
    expect(() => parseApiCall(none)).toThrow('no [ApiName(...)] call found');
  });
});
