// The server hands the engine its requests as checked (the engine does not validate them again): every body the
// server's schemas accept must become a request within the engine's own rules, or be refused with a 400. The oracle
// is the engine's schema (harness/engine/request-check.ts), the check EngineHost runs for every other caller.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompleteRequestSchema } from '../engine/request-check.ts';
import { ChatBody, CompletionBody, HttpError } from './request.ts';
import { chatSampling, completionPrompt, completionSampling } from './sampling.ts';

const INFO = { vocabSize: 300, contextSize: 512 };

/** Numbers in range, and at and past the bounds of every field (with what JSON.parse makes of `1e999`: Infinity). */
const num = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 20 }), weight: 4 },
  { arbitrary: fc.double({ min: 0, max: 1, noNaN: true }), weight: 3 },
  {
    arbitrary: fc.constantFrom(
      -0,
      2,
      2.5,
      100,
      101,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 53,
      1e300,
      Infinity,
      -Infinity,
      -100,
      -101,
    ),
    weight: 2,
  },
  { arbitrary: fc.double(), weight: 1 },
);
const str = fc.oneof(fc.constant(''), fc.string({ maxLength: 6 }));
/** Absent half of the time, so that many bodies have every field they carry in range. */
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

const common = {
  temperature: maybe(num),
  top_p: maybe(num),
  seed: maybe(num),
  repeat_penalty: maybe(num),
  repetition_penalty: maybe(num),
  max_tokens: maybe(num),
  stop: maybe(fc.oneof(str, fc.constant(null), fc.array(str, { maxLength: 20 }))),
  logit_bias: maybe(
    fc.dictionary(
      fc.oneof(fc.nat({ max: 400 }).map(String), fc.constantFrom('007', '299', '300', '99999999999999999999', '1e3')),
      num,
      { maxKeys: 3 },
    ),
  ),
};
const completion = fc.record(
  {
    prompt: fc.oneof(str, fc.array(str, { maxLength: 2 })),
    logprobs: maybe(fc.oneof(num, fc.constant(null))),
    ...common,
  },
  { requiredKeys: ['prompt'] },
);
const chat = fc.record(
  {
    messages: fc.constant([{ role: 'user', content: 'hi' }]),
    logprobs: maybe(fc.boolean()),
    top_logprobs: maybe(num),
    max_completion_tokens: maybe(num),
    ...common,
  },
  { requiredKeys: ['messages'] },
);

/** Either a 400 from the server, or a request the engine's own check accepts. */
function expectWithinEngineRules(build: () => Record<string, unknown>): void {
  let request: Record<string, unknown>;
  try {
    request = build();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(400);
    return;
  }
  const r = CompleteRequestSchema.safeParse(request);
  expect(
    r.success ? '' : `${JSON.stringify(request)}: ${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`,
  ).toBe('');
}

describe("every body the server accepts is within the engine's rules", () => {
  it('/v1/completions: the prompt and the sampling settings', () => {
    let accepted = 0;
    fc.assert(
      fc.property(completion, (body) => {
        const b = CompletionBody.safeParse(body);
        if (!b.success) return;
        accepted++;
        expectWithinEngineRules(() => ({ ...completionSampling(b.data, INFO), prompt: completionPrompt(b.data) }));
      }),
      { numRuns: 3000 },
    );
    // The property says something only about bodies the schema accepts: enough of them must be generated.
    expect(accepted).toBeGreaterThan(100);
  });

  it('/v1/chat/completions: the sampling settings (the prompt is the rendered template)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(chat, (body) => {
        const b = ChatBody.safeParse(body);
        if (!b.success) return;
        accepted++;
        expectWithinEngineRules(() => ({ ...chatSampling(b.data, INFO), prompt: '<|im_start|>user\nhi' }));
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('an empty prompt is refused by the body schema, naming the field (the engine would refuse it too)', () => {
    for (const prompt of ['', ['']]) {
      const b = CompletionBody.safeParse({ prompt });
      expect(b.success).toBe(false);
      expect(CompleteRequestSchema.safeParse({ prompt: '' }).success).toBe(false);
    }
  });
});
