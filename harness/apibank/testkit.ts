// Test support: where the real API-Bank data is (../shared/data/apibank beside the repository), read-only.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SHARED_APIBANK = fileURLToPath(new URL('../../../shared/data/apibank', import.meta.url));
export const HAS_SHARED_APIBANK = existsSync(`${SHARED_APIBANK}/derived/curated_tasks_single_prompts.jsonl`);
