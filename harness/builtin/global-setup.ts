// The eval project's global setup: the built-in suites, plus any registered before Vitest loads this file.
import { registeredSuites } from '../kit/registry.ts';
import { createGlobalSetup } from '../vitest/global-setup.ts';
import './index.ts';

export default createGlobalSetup(registeredSuites());
