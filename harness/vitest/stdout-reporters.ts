/**
 * Whether one of the run's reporters prints a machine-readable document on stdout (`--reporter=json` or `junit`
 * without an output file; `tap`, `tap-flat`): then toolgauge's summary goes to stderr, so stdout stays exactly that
 * document (`vitest run --reporter=json > out.json` parses).
 */
const DOCUMENT_REPORTERS = new Set(['json', 'junit', 'tap', 'tap-flat']);

export function stdoutIsADocument(
  reporters: readonly unknown[],
  outputFile: string | Record<string, string> | undefined,
): boolean {
  return reporters.some((r) => {
    const name = Array.isArray(r) ? r[0] : r;
    if (typeof name !== 'string' || !DOCUMENT_REPORTERS.has(name)) return false;
    if (name === 'tap' || name === 'tap-flat') return true;
    const options = Array.isArray(r) ? (r[1] as { outputFile?: unknown } | undefined) : undefined;
    const file = options?.outputFile ?? (typeof outputFile === 'string' ? outputFile : outputFile?.[name]);
    return !file;
  });
}
