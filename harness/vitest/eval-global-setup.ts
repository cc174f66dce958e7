// The global setup of evalConfig (a project's own eval files): the suites registered before Vitest loads this file
// (usually none: a describeEval suite registers itself in the test worker), and no built-in suite.
import type { TestProject } from 'vitest/node';
import { registeredSuites } from '../kit/registry.ts';
import { createGlobalSetup } from './global-setup.ts';

export default async function setup(project: TestProject) {
  return createGlobalSetup(registeredSuites())(project);
}
