import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.ts';

// A setup file runs before each test file, so each file removes the folders it made (tests/helpers/temp-dirs.ts).
afterAll(removeTempDirs);
