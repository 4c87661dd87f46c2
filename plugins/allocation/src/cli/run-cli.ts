import { writeFileSync } from 'node:fs';
import { MqkitError } from '@mqkit/core';
import { formatTable } from '../simulator/format-table';
import { renderSvg } from '../simulator/render-svg';
import { simulate } from '../simulator/simulate';
import { parseSimulateArgs, SIMULATE_USAGE } from './parse-simulate-args';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE = `Usage: mqkit-allocation <command>\n\nCommands:\n  simulate   compare allocation strategies (mqkit-allocation simulate --help)\n`;

/** The `mqkit-allocation` command line; returns the exit code. Output goes only through `io`. */
export function runCli(argv: readonly string[], io: CliIo): number {
  const [command, ...args] = argv;
  if (command !== 'simulate') {
    io.stderr(
      command === undefined || command === '--help' ? USAGE : `Unknown command ${JSON.stringify(command)}\n\n${USAGE}`,
    );
    return command === '--help' ? 0 : 2;
  }
  try {
    const parsed = parseSimulateArgs(args);
    if (parsed === 'help') {
      io.stdout(SIMULATE_USAGE);
      return 0;
    }
    const run = simulate(parsed.options);
    if (parsed.svg) writeFileSync(parsed.svg, renderSvg(run.report));
    if (parsed.json) io.stdout(`${JSON.stringify(run.report)}\n`);
    else {
      io.stdout(formatTable(run, parsed.options));
      if (parsed.svg) io.stdout(`Chart written to ${parsed.svg}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof MqkitError) {
      io.stderr(`${error.message}\n\n${SIMULATE_USAGE}`);
      return 2;
    }
    throw error;
  }
}
