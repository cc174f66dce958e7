/**
 * The name of one row of `describeEval.each(table)(template, …)`, formatted as Vitest's `describe.each` formats
 * titles: `$field` (or `$field.sub`) reads an object row, `%s` `%d` `%i` `%f` `%j` `%o` take the row's items in
 * order (the row itself when it is not an array), `%#` is the row's index and `%%` a percent sign.
 */
export function eachName(template: string, row: unknown, index: number): string {
  const items = Array.isArray(row) ? [...row] : [row];
  let next = 0;
  const printf = template.replace(/%[sdifjo#%]/g, (spec) => {
    if (spec === '%%') return '%';
    if (spec === '%#') return String(index);
    if (next >= items.length) return spec;
    const v = items[next++];
    if (spec === '%d' || spec === '%i') return String(spec === '%i' ? Math.trunc(Number(v)) : Number(v));
    if (spec === '%f') return String(Number(v));
    if (spec === '%j' || spec === '%o') return JSON.stringify(v) ?? String(v);
    return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  });
  if (!row || typeof row !== 'object' || Array.isArray(row)) return printf;
  return printf.replace(/\$([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)/g, (whole, path: string) => {
    let v: unknown = row;
    for (const k of path.split('.')) {
      if (!v || typeof v !== 'object' || !Object.hasOwn(v, k)) return whole;
      v = (v as Record<string, unknown>)[k];
    }
    return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  });
}
