// A describeEval run answered by toolgauge's simulator hands it the eval's cases first (harness/sim/eval-cases.ts),
// so the simulator's generic eval responder can play them. Case data goes to the simulator only: the one this run
// started, or an endpoint that says it is one (its models list) on this machine.
import type { RunConfig } from '../../core/config.ts';
import { parseEndpoint } from '../../model/endpoint.ts';
import { boundedFetch } from '../../model/fetch.ts';
import { EvalRegistration, evalRoute, RegisteredCase } from '../../sim/eval-cases.ts';
import type { EvalCase } from './types.ts';

/**
 * The simulator's base URL when this run's requests go to it, else undefined: the run's own simulator (no
 * `--base-url`), or a `--base-url` whose models list is the simulator's. Only loopback: the simulator listens on
 * 127.0.0.1 alone, so a remote server that claims to be one gets nothing.
 */
export function simulatorEndpoint(run: RunConfig, simUrl: string | undefined): string | undefined {
  if (run.cache === 'replay') return undefined;
  const url = run.baseUrl ? (run.endpointSimulated === true ? run.baseUrl : undefined) : simUrl;
  if (!url) return undefined;
  const ep = parseEndpoint(url);
  return isLoopback(new URL(ep.baseUrl).hostname) ? ep.baseUrl : undefined;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The registration of an eval's cases: what the simulator can use of each. An input that is neither a string nor a
 * message list is left out (the case is then found by the request header alone), and so are a predicate's
 * arguments (the call is sent by its name).
 */
export function registrationOf(cases: ReadonlyArray<EvalCase<unknown, unknown> & { id: string }>): EvalRegistration {
  return {
    cases: cases.map((c) => {
      const expected = jsonValue(c.expected);
      const out: RegisteredCase = {
        id: c.id,
        ...(expected !== undefined ? { expected } : {}),
        ...(c.expectedTools
          ? {
              expectedTools: c.expectedTools.map((t) => ({
                name: t.name,
                ...(t.arguments && typeof t.arguments === 'object'
                  ? { arguments: jsonValue(t.arguments) as Record<string, unknown> }
                  : {}),
              })),
            }
          : {}),
      };
      const withInput = { ...out, input: jsonValue(c.input) };
      return RegisteredCase.safeParse(withInput).success ? (withInput as RegisteredCase) : out;
    }),
  };
}

/** A value as JSON carries it (undefined when it has no JSON form). */
function jsonValue(v: unknown): unknown {
  if (v === undefined) return undefined;
  try {
    const text = JSON.stringify(v);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The simulator's answer to a registration is a line of JSON; anything larger is no answer of its. */
const REPLY_LIMIT_BYTES = 1 << 20;

/**
 * The least time a registration is given, whatever the run's request timeout (5 s against the simulator): it is the
 * harness's own exchange, not a model request, and a part of a large eval sends 10^4 cases in it. On a machine busy
 * with other jobs their reading took longer than 5 s once, and every case of that part became a harness error.
 */
export const REGISTRATION_TIMEOUT_FLOOR_MS = 120_000;

/**
 * Hand the eval's cases to the simulator at `baseUrl`, within the run's request timeout or
 * REGISTRATION_TIMEOUT_FLOOR_MS, whichever is longer; a refusal is an error naming the eval and the reason.
 */
export async function registerEvalCases(
  baseUrl: string,
  name: string,
  registration: EvalRegistration,
  timeoutMs: number,
): Promise<void> {
  const body = EvalRegistration.parse(registration);
  // The model client's fetch: node:http to the loopback simulator, not the global fetch, whose first call loads
  // undici's client (about 0.02 CPU-s of the test worker, which makes no other fetch).
  const text = JSON.stringify(body);
  const post = () =>
    boundedFetch(REPLY_LIMIT_BYTES)(baseUrl + evalRoute(name), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
      signal: AbortSignal.timeout(Math.max(timeoutMs, REGISTRATION_TIMEOUT_FLOOR_MS)),
    });
  const res = await withReconnects(post);
  // 409: the simulator has a responder of its own under this name (a program's `startSimServer({ responders })`),
  // which answers the eval as it always did.
  if (res.status === 409) return;
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let message = text.slice(0, 300);
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // not JSON: the text as it came
    }
    throw new Error(`describeEval ${name}: the simulator refused the eval's cases (${res.status}): ${message}`);
  }
}

/**
 * A kept-alive connection the simulator closed while this worker was busy (collecting an eval's next part takes
 * seconds, and every connection of the pool fell idle at once) can still be in the pool: writing the cases to it
 * fails before any answer. Registering is idempotent: after a pause in which the closes are seen and the pool lets
 * go of those connections, it is sent again (at most `attempts` times in all).
 */
export async function withReconnects<T>(send: () => Promise<T>, attempts = 4, pauseMs = 250): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt >= attempts || !connectionLost(err)) throw err;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }
}

/** The request's connection was closed under it, before any answer (nothing was registered by it). */
export function connectionLost(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'EPIPE' || code === 'ECONNRESET') return true;
  }
  return false;
}
