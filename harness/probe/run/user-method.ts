import { pathToFileURL } from 'node:url';
import { loadMethodModule, methodNamed, type MethodDefinition } from '../../methods/registry.ts';

// One load per process and module: a test worker runs many cases, each asking for the method.
const loads = new Map<string, Promise<string>>();

/**
 * A user's method by name: registered already, or registered by loading `module` (`--method-module FILE`). Throws a
 * one-line message naming the module when it does not register that name.
 */
export async function userMethod(name: string, module: string | undefined): Promise<MethodDefinition> {
  const known = methodNamed(name);
  if (known) return known;
  if (!module) throw new Error(`no method '${name}' is registered (pass --method-module FILE)`);
  let load = loads.get(module);
  if (!load) {
    load = loadMethodModule(pathToFileURL(module).href).catch((err: Error) => {
      throw new Error(`--method-module ${module}: ${err.message.split('\n')[0]}`);
    });
    // a failed load is not cached: the next case reports the same error itself
    load.catch(() => loads.delete(module));
    loads.set(module, load);
  }
  const registered = await load;
  const m = methodNamed(name);
  if (!m) throw new Error(`--method-module ${module} registers the method '${registered}', not '${name}'`);
  return m;
}
