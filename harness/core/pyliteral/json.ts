// Conversions between PyValue and JSON-shaped JS values.
import { floatRepr, pyRepr } from './repr.ts';
import { PyLiteralError, type PyValue } from './value.ts';
import { setOwn } from '../set-own.ts';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The JSON object key json.dumps writes for a dict key (str as is; int, float, bool, None converted). */
function jsonKey(k: PyValue): string {
  switch (k.t) {
    case 'str':
      return k.v;
    case 'int':
      return k.v.toString();
    case 'float':
      return Number.isFinite(k.v) ? floatRepr(k.v) : k.v > 0 ? 'Infinity' : '-Infinity';
    case 'bool':
      return k.v ? 'true' : 'false';
    case 'none':
      return 'null';
    default:
      return pyRepr(k); // json.dumps would raise TypeError; a readable key is more useful for tool arguments
  }
}

/**
 * A PyValue as a JSON-shaped value, for tool arguments: dict -> object (keys converted as json.dumps does, a later
 * key that converts to the same string wins), list/tuple/set -> array, None -> null, bool -> boolean, int -> number
 * when |v| <= 2**53-1 else a decimal string, float -> number (inf/-inf -> "inf"/"-inf"), str -> string, and
 * complex/bytes/Ellipsis -> their Python repr.
 */
export function pyToJson(v: PyValue): unknown {
  switch (v.t) {
    case 'int':
      return v.v <= MAX_SAFE && v.v >= -MAX_SAFE ? Number(v.v) : v.v.toString();
    case 'float':
      return Number.isFinite(v.v) ? v.v : floatRepr(v.v);
    case 'bool':
      return v.v;
    case 'none':
      return null;
    case 'str':
      return v.v;
    case 'list':
    case 'tuple':
    case 'set':
      return v.items.map(pyToJson);
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (const [k, x] of v.entries) {
        setOwn(out, jsonKey(k), pyToJson(x));
      }
      return out;
    }
    case 'complex':
    case 'bytes':
    case 'ellipsis':
      return pyRepr(v);
  }
}

/**
 * What Python's json.loads(JSON.stringify(x)) gives: objects -> dict (str keys in JS enumeration order), arrays ->
 * list, null -> None, integers below 1e21 in magnitude -> int, other finite numbers -> float, NaN/Infinity -> None
 * (JSON.stringify writes null), booleans, strings; bigint -> int. undefined/functions/symbols are dropped from
 * objects and become None in arrays, as JSON.stringify does; at the top level they are an error.
 */
export function jsonToPy(x: unknown): PyValue {
  const v = convert(x, 'top');
  if (v === undefined) throw new PyLiteralError(`jsonToPy: ${typeof x} is not JSON`);
  return v;
}

function convert(x: unknown, where: 'top' | 'array' | 'object'): PyValue | undefined {
  if (x !== null && typeof x === 'object' && typeof (x as { toJSON?: unknown }).toJSON === 'function') {
    return convert((x as { toJSON: () => unknown }).toJSON(), where);
  }
  switch (typeof x) {
    case 'string':
      return { t: 'str', v: x };
    case 'boolean':
      return { t: 'bool', v: x };
    case 'bigint':
      return { t: 'int', v: x };
    case 'number':
      if (!Number.isFinite(x)) return { t: 'none' };
      // JSON.stringify writes the shortest decimal form, which json.loads reads as that exact int.
      if (Number.isInteger(x) && Math.abs(x) < 1e21) return { t: 'int', v: BigInt(String(x)) };
      return { t: 'float', v: x };
    case 'undefined':
    case 'function':
    case 'symbol':
      return where === 'array' ? { t: 'none' } : undefined;
    case 'object': {
      if (x === null) return { t: 'none' };
      if (Array.isArray(x)) return { t: 'list', items: x.map((e) => convert(e, 'array')!) };
      const entries: Array<[PyValue, PyValue]> = [];
      for (const [k, e] of Object.entries(x)) {
        const pv = convert(e, 'object');
        if (pv !== undefined) entries.push([{ t: 'str', v: k }, pv]);
      }
      return { t: 'dict', entries };
    }
  }
}
