// Importing this module makes every suite's aggregator available (the reporter and `toolgauge report` use it).
import { mazeAggregator } from './maze.ts';
import { probeAggregator } from './probe.ts';
import { registerAggregator } from './suites.ts';

registerAggregator('maze', mazeAggregator);
registerAggregator('probe', probeAggregator);
