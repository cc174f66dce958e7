import { randomUUID } from 'node:crypto';

/**
 * A number that is written to JSON as Python's `json.dumps` writes a float: `2.0`, not `2` (files another tool's
 * readers parse keep its types). In memory and once parsed it is the plain number, so digests of a line are the same
 * before and after writing it.
 */
export class JsonFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/** `JSON.stringify(value, null, space)`, with every finite whole `JsonFloat` in it written with `.0`. */
export function stringifyJson(value: unknown, space?: number): string {
  let token: string | undefined;
  const text = JSON.stringify(
    value,
    function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = this[key];
      if (raw instanceof JsonFloat && Number.isInteger(raw.value))
        return `${(token ??= `\u0000float-${randomUUID()}:`)}${raw.value}`;
      return v;
    },
    space,
  );
  if (token === undefined) return text;
  // The placeholders are strings carrying a fresh random token: nothing else in the text can look like one.
  const quoted = JSON.stringify(token).slice(0, -1);
  return text.replace(new RegExp(`${escapeRegExp(quoted)}(-?\\d+)"`, 'g'), '$1.0');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
