export { runCli } from './run-cli';
export { buildProgram, type RunContext } from './program';
export { UsageError, EXIT } from './usage-error';
export { parseTime } from './parse-values';
