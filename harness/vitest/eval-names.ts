import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { UsageError } from '../core/errors.ts';

/**
 * The evals a run defines, by name, each with the eval file that defined it. An eval's name is its session (cases,
 * journal) and its folder (`<out-dir>/<name>/`, kit/outdir.ts), so a second eval of a name already taken in the run
 * is refused (docs/eval.md, "Several evals"). What is not a second eval: a part of the same eval file (`--parts`
 * loads the file once per part) and the same file collected again by a later run of a watching process (a new run
 * id, or a new collection of the same file).
 */
export interface EvalDefinition {
  /** The eval file (a part file's own eval file). */
  file: string;
  /** This evaluation of the file (Vitest's File task, a new one each time the file is collected). */
  collection: object;
}

export class EvalNames {
  private readonly byName = new Map<string, EvalDefinition>();

  constructor(
    readonly runId: string,
    /** Where paths are named from in the refusal (the run's folder). */
    private readonly root = process.cwd(),
  ) {}

  /** How many names the run has defined so far. */
  get size(): number {
    return this.byName.size;
  }

  /** The names the run has defined so far. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Whether an eval of `file` has taken a name. */
  hasFile(file: string): boolean {
    const path = canonical(file);
    for (const d of this.byName.values()) if (d.file === path) return true;
    return false;
  }

  /** Take `name` for `def`, or refuse it in one line naming the name and both files. */
  define(name: string, given: EvalDefinition): void {
    const def = { ...given, file: canonical(given.file) };
    const earlier = this.byName.get(name);
    if (earlier && (earlier.file !== def.file || earlier.collection === def.collection)) {
      const where =
        earlier.file === def.file
          ? `twice in ${this.shown(def.file)}`
          : `in ${this.shown(earlier.file)} and in ${this.shown(def.file)}`;
      throw new UsageError(
        `describeEval: the eval '${name}' is defined ${where}; each eval needs a name of its own (its results are written to a folder of that name)`,
      );
    }
    this.byName.set(name, def);
  }

  private shown(file: string): string {
    const rel = relative(canonical(this.root), file);
    return rel && !rel.startsWith('..') ? rel : file;
  }
}

/** One file, however its path was spelt (the CLI's path, Vitest's, through a symbolic link such as macOS's /tmp). */
function canonical(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}
