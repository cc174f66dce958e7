import { fileURLToPath } from 'node:url';
import { MODULE_EXT } from '../harness/core/paths.ts';

/** The toolgauge reporter's module, for a configuration that names it (Vitest loads reporters by path). */
export const REPORTER_PATH = fileURLToPath(new URL(`./toolgauge${MODULE_EXT}`, import.meta.url));
