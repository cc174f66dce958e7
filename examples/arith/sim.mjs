// A simulated arithmetic model for trying arith.eval.ts without a model: `node sim.mjs` prints its URL (PORT picks
// the port). `--model sim:oracle` calls the right tool and answers with its result; `--model sim:wrong` answers
// additions one off, without a tool.
import { startSimServer } from 'toolgauge';

const question = (body) =>
  /(-?\d+)\s+(times|plus)\s+(-?\d+)/.exec(String(body.messages.find((m) => m.role === 'user')?.content ?? ''));

/** Reads "What is A times|plus B?", calls the matching tool once, then answers with the tool's result. */
export function arithReply(spec, body) {
  const m = question(body);
  if (!m) return { content: '<answer>I cannot tell</answer>' };
  if (spec.name === 'wrong' && m[2] === 'plus')
    return { content: `<answer>${Number(m[1]) + Number(m[3]) + 1}</answer>` };
  const result = [...body.messages].reverse().find((x) => x.role === 'tool');
  if (result) return { content: `The result is <answer>${result.content}</answer>` };
  const name = m[2] === 'times' ? 'multiply' : 'add';
  return {
    content: null,
    tool_calls: [
      {
        id: 'call_0',
        type: 'function',
        function: { name, arguments: JSON.stringify({ a: Number(m[1]), b: Number(m[3]) }) },
      },
    ],
  };
}

const sim = await startSimServer({
  port: Number(process.env.PORT ?? 0),
  responders: {
    // `identify` answers any client (toolgauge's requests also name the suite in a header): an arithmetic question.
    arith: { chat: (spec, body) => arithReply(spec, body), identify: (body) => question(body)?.[0] },
  },
});
console.log(sim.url);
