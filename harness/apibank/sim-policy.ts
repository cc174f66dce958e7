// The simulator's API-Bank replies, pure: from the task's own gold call (the suite's data, never the request).
import { pyRepr } from '../core/pyliteral/index.ts';
import { apiCallString, normalizedPyParams, type ApibankTask } from './tasks.ts';

export const APIBANK_POLICIES = ['oracle', 'wrong', 'wrong_name', 'wrong_arg', 'no_call'] as const;
export type ApibankPolicy = (typeof APIBANK_POLICIES)[number];

/**
 * oracle: the gold call; wrong / wrong_name: the gold arguments under another API's name; wrong_arg: the gold call
 * with its last argument's value replaced (an extra unknown argument when the call has none); no_call: prose only.
 */
export function apibankReply(policy: ApibankPolicy, t: ApibankTask): string {
  const name = t.ground_truth.api_name;
  const params = normalizedPyParams(t.ground_truth.param_dict);
  switch (policy) {
    case 'oracle':
      return t.gold_api_call;
    case 'wrong':
    case 'wrong_name':
      return apiCallString(name === 'NoSuchApi' ? 'OtherApi' : 'NoSuchApi', params);
    case 'wrong_arg': {
      if (!params.length) return apiCallString(name, [['unexpected_argument', { t: 'str', v: 'x' }]]);
      const [k, v] = params[params.length - 1]!;
      const wrong = v.t === 'str' && v.v === 'WRONG VALUE 9' ? 'OTHER VALUE 7' : 'WRONG VALUE 9';
      return `[${name}(${[...params.slice(0, -1), [k, { t: 'str', v: wrong }] as const].map(([a, b]) => `${a}=${pyRepr(b)}`).join(', ')})]`;
    }
    case 'no_call':
      return 'I could not work out which API to call next.';
  }
}
