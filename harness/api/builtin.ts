// The built-in suites, for programmatic use (the package subpath 'toolgauge/builtin'): importing it loads and
// registers every suite folder's definition; loadBuiltinSuites loads only those named.
export { BUILTIN_SUITES } from '../builtin/index.ts';
export { BUILTIN_SUITE_NAMES, loadBuiltinSuites } from '../builtin/load.ts';
