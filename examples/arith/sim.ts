// A simulated arithmetic model for trying arith.eval.ts without a model: `npx tsx sim.ts` prints its URL; then
// `npx toolgauge eval arith.eval.ts --base-url <that URL> --model sim-arith`.
import { startSimServer, type ChatBody, type SimReply } from 'toolgauge';

/** Reads "What is A times|plus B?", calls the matching tool once, then answers with the tool's result. */
export function arithReply(body: ChatBody): SimReply {
  const user = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
  const m = /(-?\d+)\s+(times|plus)\s+(-?\d+)/.exec(user);
  const result = [...body.messages].reverse().find((x) => x.role === 'tool');
  if (result) return { content: `The result is <answer>${result.content}</answer>` };
  if (!m) return { content: '<answer>I cannot tell</answer>' };
  const name = m[2] === 'times' ? 'multiply' : 'add';
  return { content: null, tool_calls: [{ id: 'call_0', type: 'function', function: { name, arguments: JSON.stringify({ a: Number(m[1]), b: Number(m[3]) }) } }] };
}

const sim = await startSimServer({ port: Number(process.env.PORT ?? 0), responders: { arith: { chat: (_spec, body) => arithReply(body) } } });
console.log(sim.url);
