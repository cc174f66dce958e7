// The shape of one API-Bank API class and the helpers every class port shares: the result dict, the call wrapper
// that turns a caught exception into `exception: str(e)`, the token checker, and the content-word Jaccard.
import { asStr, D, eq, excText, getItem, lower, NONE, raise, S, type V } from './py.ts';

export interface ApiInstance {
  /** The class's `call(**kwargs)`: `args` holds the bound arguments (defaults filled), `extra` any **kwargs. */
  call(args: Record<string, V>, extra: Array<[string, V]>): V;
  /** The class's `check_api_call_correctness(response, groundtruth)` (both already deep copies). */
  check(response: V, groundtruth: V): boolean;
}

export interface TokenChecker {
  checkToken(token: V): V;
}

export interface ApiDef {
  name: string;
  /** input_parameters in class order: name -> declared type. */
  inputParameters: ReadonlyArray<readonly [string, string]>;
  /** Class attribute `database_name`, when the class has one. */
  databaseName?: string;
  /** The Python signature of `call`: required names, optional names with their defaults, and **kwargs. */
  required: readonly string[];
  optional?: Readonly<Record<string, V>>;
  varKw?: boolean;
  /** Whether the class's __init__ accepts init_database / token_checker. */
  make(db: V | undefined, tokenChecker: TokenChecker | undefined): ApiInstance;
}

/** The result dict `call` returns; `apiName` null for the classes whose result has no api_name key. */
export function result(apiName: string | null, input: V, output: V, exception: V): V {
  return apiName === null ? D({ input, output, exception }) : D({ api_name: S(apiName), input, output, exception });
}

/** try: output = fn() except Exception as e: exception = str(e) — the pattern of every `call`. */
export function wrap(apiName: string | null, input: V, fn: () => V): V {
  let out: V;
  try {
    out = fn();
  } catch (err) {
    return result(apiName, input, NONE, S(excText(err)));
  }
  return result(apiName, input, out, NONE);
}

/** response[a][b]... */
export const at = (v: V, ...keys: string[]): V => keys.reduce<V>((x, k) => getItem(x, k), v);

/** `assert response['api_name'] == groundtruth['api_name'], ...` */
export function assertSameName(response: V, groundtruth: V): void {
  if (!eq(at(response, 'api_name'), at(groundtruth, 'api_name')))
    raise('AssertionError', 'The API name is not correct.');
}

/** len(set(a.split(' ')) & set(b.split(' '))) / len(union) > 0.5, with `.lower()` first when asked. */
export function contentJaccard(a: V, b: V, lowerFirst: boolean): boolean {
  const words = (v: V): Set<string> => new Set((lowerFirst ? lower(v) : asStr(v, 'split')).split(' '));
  const x = words(a);
  const y = words(b);
  let inter = 0;
  for (const w of x) if (y.has(w)) inter++;
  const union = x.size + y.size - inter;
  return inter / union > 0.5;
}

/** Opaque object for a value no JSON value equals (an Exception instance returned as an output). */
export const OPAQUE: V = { t: 'ellipsis' };
