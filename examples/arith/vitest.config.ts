import { defineConfig } from 'vitest/config';
import { evalConfig } from 'toolgauge/vitest-config';

export default defineConfig(evalConfig({ include: ['**/*.eval.ts'] }));
