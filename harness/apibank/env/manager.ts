// One scoring session's API objects, as the reference's per-score manager holds them: every class instance made
// once, on its own deep copy of its init database, with the session's CheckToken as token checker (levels 1-2);
// api_call checks each keyword against input_parameters and coerces int/float/bool parameters before calling.
import type { ApiDef, ApiInstance, TokenChecker } from './api-kit.ts';
import { CheckToken, makeTokenChecker } from './apis-account.ts';
import { deepCopy, raise, str, toFloat, toInt, B, type V } from './py.ts';
import { APIS, LV3_APIS } from './registry.ts';
import type { ApiBankLevel, Databases } from './index.ts';

export class ApiManager {
  private readonly defs: ReadonlyMap<string, ApiDef>;
  private readonly tools = new Map<string, ApiInstance>();
  private readonly tokenChecker: TokenChecker | undefined;

  constructor(
    level: ApiBankLevel,
    private readonly dbs: Databases,
  ) {
    this.defs = level === '3' ? LV3_APIS : APIS;
    if (level !== '3') {
      const tc = makeTokenChecker(this.copyDb(CheckToken) ?? { t: 'dict', entries: [] });
      this.tokenChecker = tc;
      this.tools.set('CheckToken', {
        call: (a) => tc.call(a.token!),
        check: CheckToken.make(undefined, undefined).check,
      });
    }
  }

  private copyDb(def: ApiDef): V | undefined {
    const db = def.databaseName === undefined ? undefined : this.dbs.tables.get(def.databaseName);
    return db === undefined ? undefined : deepCopy(db);
  }

  def(name: string): ApiDef {
    const d = this.defs.get(name);
    if (!d) raise('KeyError', `"API class '${name}' not found"`);
    return d!;
  }

  initTool(name: string): ApiInstance {
    let t = this.tools.get(name);
    if (!t) {
      const d = this.def(name);
      const takesToken = d.inputParameters.some(([p]) => p === 'token');
      t = d.make(this.copyDb(d), takesToken ? this.tokenChecker : undefined);
      this.tools.set(name, t);
    }
    return t;
  }

  /** manager.api_call(name, **kwargs) */
  apiCall(name: string, kwargs: ReadonlyArray<readonly [string, V]>): V {
    const d = this.def(name);
    const types = new Map(d.inputParameters);
    const processed: Array<[string, V]> = [];
    for (const [k, v] of kwargs) {
      const type = types.get(k);
      if (type === undefined) raise('AssertionError', `invalid parameter name. parameter: ${k}`);
      if (type === 'int') processed.push([k, toInt(v)]);
      else if (type === 'float') processed.push([k, toFloat(v)]);
      else if (type === 'bool') processed.push([k, v.t === 'bool' ? v : B(str(v) === 'True')]);
      else processed.push([k, v]);
    }
    const tool = this.initTool(name);
    return tool.call(...bind(d, processed));
  }
}

/** Python's binding of call(**kwargs) to the class's `call` signature, with its TypeErrors. */
function bind(d: ApiDef, kwargs: Array<[string, V]>): [Record<string, V>, Array<[string, V]>] {
  const named = new Set([...d.required, ...Object.keys(d.optional ?? {})]);
  const args = Object.create(null) as Record<string, V>;
  const extra: Array<[string, V]> = [];
  for (const [k, v] of kwargs) {
    if (named.has(k)) args[k] = v;
    else if (d.varKw) extra.push([k, v]);
    else raise('TypeError', `${d.name}.call() got an unexpected keyword argument '${k}'`);
  }
  const missing = d.required.filter((p) => !(p in args));
  if (missing.length > 0) {
    const q = missing.map((p) => `'${p}'`);
    const list =
      q.length === 1 ? q[0] : q.length === 2 ? `${q[0]} and ${q[1]}` : `${q.slice(0, -1).join(', ')}, and ${q.at(-1)}`;
    raise(
      'TypeError',
      `${d.name}.call() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${list}`,
    );
  }
  for (const [k, v] of Object.entries(d.optional ?? {})) if (!(k in args)) args[k] = v;
  return [args, extra];
}
