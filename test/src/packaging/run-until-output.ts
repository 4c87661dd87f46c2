import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type CommandResult, CommandError, captureOutput, commandResult, showCommand, tail } from './run-command';

/** A long-running program that printed what was awaited and is still running. */
export interface RunningProgram {
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  /** Sends `signal` and resolves when the program has exited (SIGKILL after `graceMs`, shown in the result). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<CommandResult>;
}

export interface StartOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Checked after every stdout line; the wait ends when it returns true. */
  readonly until: (lines: readonly string[]) => boolean;
  /** Says what is awaited, for the timeout message. */
  readonly awaiting: string;
  readonly timeoutMs: number;
}

/** Programs started here and not yet exited: the spec's afterAll ends them if a test left one behind. */
const live = new Set<ChildProcess>();

/** SIGKILLs every program this module started that is still running. */
export function killLeftovers(): void {
  for (const child of live) child.kill('SIGKILL');
}

/**
 * Starts a program and resolves once its stdout satisfies `until` (each line is checked as it arrives: no
 * polling, no sleeps). Rejects with the command, its exit code and the tail of its output when it exits first,
 * or when `timeoutMs` passes (then it is killed).
 */
export function startAndWaitFor(file: string, args: readonly string[], options: StartOptions): Promise<RunningProgram> {
  const command = showCommand(file, args);
  const started = Date.now();
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const lines: string[] = [];
  const captured = captureOutput(child);
  const exited = new Promise<CommandResult>((resolve) => {
    child.on('close', (code, signal) => {
      live.delete(child);
      resolve(commandResult(command, options.cwd, started, captured, code, signal));
    });
  });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 30_000): Promise<CommandResult> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        captured.output += `\n[still running ${graceMs} ms after ${signal}: SIGKILL]\n`;
        child.kill('SIGKILL');
        resolve();
      }, graceMs);
    });
    await Promise.race([exited, killed]);
    const done = await exited;
    clearTimeout(timer);
    return done;
  };

  return new Promise<RunningProgram>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      void stop('SIGKILL').then((r) =>
        reject(
          new Error(
            `\`${command}\` (in ${options.cwd}) did not print ${options.awaiting} within ${options.timeoutMs} ms\n` +
              `--- output ---\n${tail(r.output)}`,
          ),
        ),
      );
    }, options.timeoutMs);
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      if (settled || !options.until(lines)) return;
      settled = true;
      clearTimeout(timer);
      resolve({ lines, stop });
    });
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`cannot start \`${command}\` in ${options.cwd}: ${error.message}`, { cause: error }));
    });
    void exited.then((r) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new CommandError(r, `exited before printing ${options.awaiting}`));
    });
  });
}
