/**
 * A response the model client's fetch refuses to hand on. Asking again would get the same answer, so the clients
 * fail such a request at once instead of retrying it (harness/model/retry.ts, the Anthropic client).
 */
export class FetchRefused extends Error {
  override name = 'FetchRefused';
}

/** A response body past the size limit (a hostile endpoint can send gigabytes). */
export class ResponseTooLarge extends FetchRefused {
  override name = 'ResponseTooLarge';
}

/** A redirect not followed: too many hops, a downgrade from https to http, or a scheme that is not HTTP. */
export class RedirectRefused extends FetchRefused {
  override name = 'RedirectRefused';
}
