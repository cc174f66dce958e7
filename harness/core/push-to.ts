/**
 * Append `value` to the list `map` holds under `key` (a new list the first time). Grouping by copying the list on
 * every append (`map.set(k, [...(map.get(k) ?? []), v])`) is quadratic: a tag with 50,000 cases took 35 s.
 */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
