// The eval project's global setup: the built-in suites the run uses, plus any registered before Vitest loads this file.
import { registeredSuites } from '../kit/registry.ts';
import { createGlobalSetup } from '../vitest/global-setup.ts';
import { loadBuiltinSuites } from './load.ts';

export default async function setup(project: Parameters<ReturnType<typeof createGlobalSetup>>[0]) {
  await loadBuiltinSuites(process.env);
  return createGlobalSetup(registeredSuites())(project);
}
