// Importing this module makes every suite's aggregator available (the reporter and `toolgauge report` use it).
import './suites.ts';
