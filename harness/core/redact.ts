/**
 * Secrets never reach a file or the terminal. Known secrets (the API key, credentials and key-like query values of
 * the endpoint URL, the Hugging Face token) are registered when the configuration is parsed; every text toolgauge
 * writes goes through `redact` (the JSONL and file writers in jsonl.ts, and the model layer's responses and
 * errors, where an endpoint could echo a key back).
 *
 * A cut (the stored-size cap, an error body's bound) must come after redaction, never before: a secret that
 * straddles the cut would otherwise be stored minus its last characters, where `redact` no longer sees it. Every
 * cut goes through `redactCut`, which redacts first and then also masks a secret's beginning left at the cut.
 */
const secrets = new Set<string>();
/** Longest first, so a secret containing another is replaced whole (kept sorted as secrets are registered). */
let ordered: string[] = [];

/** The marker a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** The shortest beginning of a secret that is masked where a cut leaves it (shorter is ordinary text). */
export const MIN_SECRET_PREFIX = 8;

/** Register a secret (too-short values are ignored: they would mask ordinary text and are not secrets). */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < 6 || /^(not-needed|none|null|sk-no-key-required)$/i.test(value)) return;
  secrets.add(value);
  // The same secret as it appears in URLs, JSON strings and Basic credentials.
  secrets.add(encodeURIComponent(value));
  secrets.add(JSON.stringify(value).slice(1, -1));
  ordered = [...secrets].sort((a, b) => b.length - a.length);
}

/** Whether any secret is registered (redact then changes nothing). */
export function hasSecrets(): boolean {
  return secrets.size > 0;
}

export function redact(text: string): string {
  if (!secrets.size || !text) return text;
  let out = text;
  for (const s of ordered) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** Every string of a value redacted, object keys included (values that are not plain data are kept as they are). */
export function redactDeep<T>(value: T): T {
  if (!secrets.size) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    // defineProperty keeps a data key such as `__proto__` as an own key.
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, redact(k), {
        value: redactDeep(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out as T;
  }
  return value;
}

/**
 * A text that ends where something was cut off: a secret's beginning of `MIN_SECRET_PREFIX` or more characters
 * at its very end is masked too (the rest of the secret was on the far side of the cut).
 */
export function redactTail(text: string): string {
  let longest = 0;
  for (const s of ordered) {
    for (let k = Math.min(s.length - 1, text.length); k >= Math.max(MIN_SECRET_PREFIX, longest + 1); k--) {
      if (text.endsWith(s.slice(0, k))) {
        longest = k;
        break;
      }
    }
  }
  return longest ? text.slice(0, text.length - longest) + REDACTED : text;
}

/**
 * `text` redacted, then cut to its first `max` characters when longer, with `marker(length)` appended (`length`:
 * of the redacted text). The only safe order: redact, cut, mask what the cut left of a secret.
 */
export function redactCut(text: string, max: number, marker: (length: number) => string): string {
  const r = redact(text);
  return r.length > max ? redactTail(r.slice(0, max)) + marker(r.length) : r;
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  secrets.clear();
  ordered = [];
}
