import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../core/chat.ts';
import type { RegisteredCase } from './eval-cases.ts';
import { evalResponder } from './eval-responder.ts';
import { parsePolicySpec } from './policy-spec.ts';
import type { ChatBody, SimReply } from './server.ts';

// The generic eval responder against expectations written out by hand from the policies' definitions.

const MUL: RegisteredCase = {
  id: 'mul-1',
  input: 'What is 6 times 7?',
  expected: '42',
  expectedTools: [
    { name: 'multiply', arguments: { a: 6, b: 7 } },
    { name: 'add', arguments: { a: 42, b: 0 } },
  ],
};
const PLAIN: RegisteredCase = { id: 'plain', input: 'Say yes', expected: { ok: true } };
const CHATTY: RegisteredCase = {
  id: 'long id with spaces',
  input: [
    { role: 'user', content: 'First question' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'p', type: 'function', function: { name: 'x', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'p', content: 'earlier result' },
    { role: 'user', content: 'Now multiply' },
  ],
  expected: 12,
  expectedTools: [{ name: 'multiply', arguments: { a: 3, b: 4 } }],
};
const responder = evalResponder('arith', [MUL, PLAIN, CHATTY]);

const user = (content: string): ChatMessage => ({ role: 'user', content });
const toolResult = (content: string): ChatMessage => ({ role: 'tool', tool_call_id: 'c', content });
const ask = (policy: string, messages: ChatMessage[], id = 'mul-1', trial = 0): SimReply =>
  responder.chat!(parsePolicySpec(policy), { model: policy, messages } satisfies ChatBody, {
    instance: `arith:${id}`,
    id,
    agent: '0',
    trial,
  }) as SimReply;
const call = (r: SimReply) => r.tool_calls?.map((c) => [c.function.name, JSON.parse(c.function.arguments)]);

describe('the generic eval responder', () => {
  it('sim:oracle makes the expected calls in order, one a turn, then answers the expected value', () => {
    expect(call(ask('sim:oracle', [user('What is 6 times 7?')]))).toEqual([['multiply', { a: 6, b: 7 }]]);
    expect(call(ask('sim:oracle', [user('What is 6 times 7?'), toolResult('42')]))).toEqual([['add', { a: 42, b: 0 }]]);
    expect(ask('sim:oracle', [user('What is 6 times 7?'), toolResult('42'), toolResult('42')])).toEqual({
      content: '<answer>42</answer>',
    });
  });

  it('a case without expected tools is answered at once; a non-string expected value as JSON', () => {
    expect(ask('sim:oracle', [user('Say yes')], 'plain')).toEqual({ content: '<answer>{"ok":true}</answer>' });
  });

  it("counts progress past the tool results of the case's own conversation", () => {
    const input = CHATTY.input as ChatMessage[];
    const id = responder.identify!({ model: 'm', messages: input }) as string;
    expect(call(ask('sim:oracle', input, id))).toEqual([['multiply', { a: 3, b: 4 }]]);
    expect(ask('sim:oracle', [...input, toolResult('12')], id)).toEqual({ content: '<answer>12</answer>' });
  });

  it('sim:wrong makes the calls and answers another value (a number one more)', () => {
    expect(call(ask('sim:wrong', [user('q')]))).toEqual([['multiply', { a: 6, b: 7 }]]);
    expect(ask('sim:wrong', [user('q'), toolResult('1'), toolResult('2')])).toEqual({
      content: '<answer>43</answer>',
    });
    expect(ask('sim:wrong', [user('Say yes')], 'plain')).toEqual({ content: '<answer>no answer</answer>' });
  });

  it('sim:no_call answers the expected value without a call', () => {
    expect(ask('sim:no_call', [user('q')])).toEqual({ content: '<answer>42</answer>' });
  });

  it('sim:wrong_arg (and sim:wrong_args) change the last argument of the first call, then answer right', () => {
    for (const policy of ['sim:wrong_arg', 'sim:wrong_args']) {
      expect(call(ask(policy, [user('q')]))).toEqual([['multiply', { a: 6, b: 8 }]]);
      expect(call(ask(policy, [user('q'), toolResult('48')]))).toEqual([['add', { a: 42, b: 0 }]]);
      expect(ask(policy, [user('q'), toolResult('48'), toolResult('42')])).toEqual({ content: '<answer>42</answer>' });
    }
  });

  it('sim:coin is the oracle or wrong, the same for the same case, trial and seed; p=1 and p=0 are each', () => {
    const answer = (p: string, trial: number) =>
      ask(`sim:coin?p=${p}`, [user('q'), toolResult('1'), toolResult('2')], 'mul-1', trial).content;
    expect(answer('1', 0)).toBe('<answer>42</answer>');
    expect(answer('0', 0)).toBe('<answer>43</answer>');
    const draws = Array.from({ length: 40 }, (_, t) => answer('0.5', t));
    expect(new Set(draws)).toEqual(new Set(['<answer>42</answer>', '<answer>43</answer>']));
    expect(Array.from({ length: 40 }, (_, t) => answer('0.5', t))).toEqual(draws);
    // tools=none answers at once
    expect(ask('sim:coin?p=1&tools=none', [user('q')])).toEqual({ content: '<answer>42</answer>' });
  });

  it('identifies a request by its first user message; knows the header ids; refuses a policy it does not play', () => {
    expect(responder.identify!({ model: 'm', messages: [{ role: 'system', content: 's' }, user('Say yes')] })).toBe(
      'plain',
    );
    expect(responder.identify!({ model: 'm', messages: [user('Say no')] })).toBeUndefined();
    expect(responder.knows('mul-1')).toBe(true);
    expect(responder.knows('long id with spaces')).toBe(false); // the header carries it hashed
    expect(() => ask('sim:naive', [user('q')])).toThrow(/not sim:naive/);
    expect(() => ask('sim:oracle', [user('q')], 'nope')).toThrow(/no case 'nope'/);
  });
});
