// Maze, complexity C2: every task × selected mode (P0–P4) is one test.
import { defineMazeSuite } from '../../harness/vitest/maze-suite.ts';

defineMazeSuite('c2');
