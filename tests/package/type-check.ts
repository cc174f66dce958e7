import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import type * as TS from 'typescript';

/**
 * Type-checks a fresh project as `tsc` would with its tsconfig.json and `overrides` (`{ noEmit: true }` for
 * `tsc --noEmit`, as on tsc's command line); with `ownDeclarations`,
 * toolgauge's own declarations (node_modules/toolgauge) are checked too, as without `skipLibCheck` — but not the other
 * libraries' declarations: what `--skipLibCheck false` adds about 10 CPU-s for is checking zod's, Node's and Vitest's,
 * which are not toolgauge's to fix. Runs in the calling process with the project's own `typescript`; returns tsc's
 * formatted errors ('' if none).
 */
export function typeCheck(
  dir: string,
  {
    overrides = {},
    ownDeclarations = false,
  }: { overrides?: Record<string, string | boolean>; ownDeclarations?: boolean } = {},
): string {
  const ts = createRequire(join(dir, 'package.json'))('typescript') as typeof TS;
  // As on tsc's command line: `{ module: 'ESNext' }` for `--module ESNext`.
  const options = ts.convertCompilerOptionsFromJson(overrides, dir);
  if (options.errors.length) throw new Error(ts.formatDiagnostics(options.errors, formatHost(dir)));
  const host: TS.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(`${dir}/tsconfig.json: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    },
  };
  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    ownDeclarations ? { ...options.options, skipLibCheck: false } : options.options,
    host,
  );
  if (!config) throw new Error(`${dir}/tsconfig.json: not read`);
  const compilerHost = ts.createCompilerHost(config.options);
  // As tsc parses: JSDoc only where it can raise a type error (tsc's own default since TypeScript 5.3; the API's is to
  // parse all of it, about a fifth of parsing the libraries' heavily commented declarations).
  compilerHost.jsDocParsingMode = ts.JSDocParsingMode.ParseForTypeErrors;
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    host: sharingDeclarations(ts, compilerHost),
  });
  // The other packages are symlinks into the checkout's node_modules: their real paths hold a node_modules folder
  // too, while toolgauge is unpacked inside the project.
  const own = join(dir, 'node_modules', 'toolgauge') + sep;
  // Without `ownDeclarations`, every file as tsc checks them (skipLibCheck as configured).
  const checked = ownDeclarations
    ? program
        .getSourceFiles()
        .filter((f) => f.fileName.startsWith(own) || !f.fileName.split('/').includes('node_modules'))
    : program.getSourceFiles();
  if (!program.getSourceFiles().some((f) => f.fileName.startsWith(own) && f.isDeclarationFile))
    throw new Error(`${dir}: the program holds none of toolgauge's declarations`);
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  return ts.formatDiagnostics(diagnostics, formatHost(dir));
}

/**
 * Declaration files parsed (and bound) once per process, for every check after the first: most of a check's CPU is
 * parsing TypeScript's lib, Node's, zod's and Vitest's declarations, the same files (real paths in the checkout) in
 * every fresh project. Keyed as TypeScript's language service shares them between programs (the parse depends on the
 * language version, the module format and JSDoc parsing; a declaration file's module indicator on no option). The
 * files do not change while the tests run.
 */
const parsedDeclarations = new WeakMap<typeof TS, Map<string, TS.SourceFile>>();

function sharingDeclarations(ts: typeof TS, host: TS.CompilerHost): TS.CompilerHost {
  let parsed = parsedDeclarations.get(ts);
  if (!parsed) parsedDeclarations.set(ts, (parsed = new Map()));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!/\.d\.[cm]?ts$/.test(fileName)) return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    const v = typeof languageVersion === 'object' ? languageVersion : { languageVersion };
    const key = `${fileName}\0${v.languageVersion}\0${v.impliedNodeFormat}\0${v.jsDocParsingMode}`;
    let file = parsed.get(key);
    if (!file) {
      file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
      if (file) parsed.set(key, file);
    }
    return file;
  };
  return host;
}

function formatHost(dir: string): TS.FormatDiagnosticsHost {
  return { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
}
