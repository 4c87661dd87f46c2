import { CommanderError } from 'commander';
import { ConfigurationError, MessageValidationError } from '@mqkit/core';
import { buildProgram, type RunContext } from './program';
import { EXIT, UsageError } from './usage-error';

/**
 * Runs `mqkit` with these arguments (without node and the script) and resolves with the exit status: 0 done, 1 the
 * operation failed, 2 bad usage (an unknown option, a bad value, no name server, one that does not answer, or a
 * group or topic the cluster does not know).
 */
export async function runCli(
  argv: readonly string[],
  context: {
    signal: AbortSignal;
    env?: NodeJS.ProcessEnv;
    stderr?: (text: string) => void;
    /** @internal See RunContext. */
    transport?: RunContext['transport'];
  },
): Promise<number> {
  const stderr = context.stderr ?? ((t: string) => void process.stderr.write(t));
  const program = buildProgram({
    signal: context.signal,
    env: context.env ?? process.env,
    transport: context.transport,
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed the message (or the help) itself.
      return error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.help' ||
        error.code === 'commander.version'
        ? EXIT.OK
        : EXIT.USAGE;
    }
    // Bad input the library refused (a topic name, a filter, a property) is the caller's mistake, as a bad option is.
    const usage =
      error instanceof UsageError || error instanceof ConfigurationError || error instanceof MessageValidationError;
    stderr(`mqkit: ${error instanceof Error ? error.message : String(error)}\n`);
    return usage ? EXIT.USAGE : EXIT.FAILED;
  }
}
