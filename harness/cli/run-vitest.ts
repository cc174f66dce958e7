import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startVitest } from 'vitest/node';
import { fromRoot, PACKAGE_ROOT } from '../core/paths.ts';

/**
 * Run eval suites through Vitest's Node API — the same code path as `vitest run --project eval <files>`; the run's
 * configuration is already in process.env. Returns the exit code the reporter decided.
 */
export async function runEvalSuites(files: string[], opts: { shard?: string; filter?: string; reportPath?: string }): Promise<number> {
  process.env.TOOLGAUGE_CLI = '1';
  const vitest = await startVitest(
    'test',
    files,
    {
      root: PACKAGE_ROOT,
      config: fromRoot('vitest.config.ts'),
      project: ['eval'],
      watch: false,
      ...(opts.shard ? { shard: opts.shard } : {}),
      ...(opts.filter ? { testNamePattern: opts.filter } : {}),
    },
    {},
  );
  await vitest?.close();
  const code = typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
  if (opts.reportPath && existsSync(opts.reportPath)) process.stdout.write('\n' + readFileSync(opts.reportPath, 'utf8'));
  return code;
}

export function reportPathOf(outDir: string): string {
  return join(outDir, 'report.md');
}
