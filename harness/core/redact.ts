/**
 * Secrets never reach a file or the terminal. Known secrets (the API key, credentials and key-like query values of
 * the endpoint URL, the Hugging Face token) are registered when the configuration is parsed; every text toolgauge
 * writes goes through `redact` (the JSONL and file writers in jsonl.ts, and the model layer's responses and
 * errors, where an endpoint could echo a key back).
 */
const secrets = new Set<string>();

/** The marker a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Register a secret (too-short values are ignored: they would mask ordinary text and are not secrets). */
export function registerSecret(value: string | undefined | null): void {
  if (!value || value.length < 6 || /^(not-needed|none|null|sk-no-key-required)$/i.test(value)) return;
  secrets.add(value);
  // The same secret as it appears in URLs, JSON strings and Basic credentials.
  secrets.add(encodeURIComponent(value));
  secrets.add(JSON.stringify(value).slice(1, -1));
}

export function redact(text: string): string {
  if (!secrets.size || !text) return text;
  let out = text;
  // Longest first, so a secret containing another is replaced whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** For tests: forget every registered secret. */
export function clearSecrets(): void {
  secrets.clear();
}
