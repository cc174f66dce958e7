import { suiteFolders } from '../suite-folders.ts';

let names: readonly string[] | undefined;

/**
 * Why an eval may not take this name, or null: a built-in suite's name (harness/kit/suite-folders.ts) is that
 * suite's, in the simulator's routing and in the output folders alike.
 */
export function builtinNameRefusal(name: string): string | null {
  names ??= suiteFolders().map((f) => f.name);
  const lower = name.toLowerCase();
  return names.includes(lower)
    ? `describeEval: '${name}' names the built-in suite '${lower}' (its output folder and simulator route); give the eval another name`
    : null;
}
