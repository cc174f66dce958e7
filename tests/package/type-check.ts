import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import type * as TS from 'typescript';

/**
 * Type-checks a fresh project as `tsc --noEmit` would with its tsconfig.json and `overrides`, and toolgauge's own
 * declarations (node_modules/toolgauge) as without `skipLibCheck` — but not the other libraries' declarations: what
 * `--skipLibCheck false` adds about 10 CPU-s for is checking zod's, Node's and Vitest's, which are not toolgauge's to
 * fix. Runs in the calling process with the project's own `typescript`; returns tsc's formatted errors ('' if none).
 */
export function typeCheckWithOwnDeclarations(dir: string, overrides: Record<string, string | boolean> = {}): string {
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
    { ...options.options, skipLibCheck: false },
    host,
  );
  if (!config) throw new Error(`${dir}/tsconfig.json: not read`);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  // The other packages are symlinks into the checkout's node_modules: their real paths hold a node_modules folder
  // too, while toolgauge is unpacked inside the project.
  const own = join(dir, 'node_modules', 'toolgauge') + sep;
  const checked = program
    .getSourceFiles()
    .filter((f) => f.fileName.startsWith(own) || !f.fileName.split('/').includes('node_modules'));
  if (!checked.some((f) => f.fileName.startsWith(own) && f.isDeclarationFile))
    throw new Error(`${dir}: the program holds none of toolgauge's declarations`);
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...checked.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  return ts.formatDiagnostics(diagnostics, formatHost(dir));
}

function formatHost(dir: string): TS.FormatDiagnosticsHost {
  return { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => '\n' };
}
