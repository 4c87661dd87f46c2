import { type ChildProcess, type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

/** What a finished command left behind. */
export interface CommandResult {
  readonly command: string;
  readonly cwd: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr interleaved as they arrived: what a person at the terminal would have seen. */
  readonly output: string;
  readonly durationMs: number;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Kill the command (and its children) after this long; the result then has `signal: 'SIGKILL'`. */
  readonly timeoutMs?: number;
}

/** Lines of output a failure message shows: enough for npm's ERESOLVE explanation or a tsc error list. */
const TAIL_LINES = 60;

/** The last lines of a command's output, for failure messages. */
export function tail(text: string, lines = TAIL_LINES): string {
  const all = text.trimEnd().split('\n');
  const kept = all.slice(-lines).join('\n');
  return all.length > lines ? `… (${all.length - lines} lines above)\n${kept}` : kept;
}

/** A shell-like rendering of a command line, for messages (not for execution). */
export function showCommand(file: string, args: readonly string[]): string {
  return [file, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** The command, its directory, how it ended and the tail of its output: what a failure message shows. */
export function describeRun(result: CommandResult): string {
  const status = result.signal ? `killed by ${result.signal}` : `exit code ${result.code}`;
  return (
    `\`${result.command}\` (in ${result.cwd}) ended with ${status} after ${result.durationMs} ms\n` +
    `--- output ---\n${tail(result.output)}`
  );
}

/** A command that failed: the message names the command, its directory, its exit code and its output's tail. */
export class CommandError extends Error {
  override readonly name = 'CommandError';

  constructor(
    readonly result: CommandResult,
    what?: string,
  ) {
    super(`${what ? `${what}: ` : ''}${describeRun(result)}`);
  }
}

/** A child whose stdout and stderr are pipes (stdin ignored), as both runners here spawn it. */
export type PipedChild = ChildProcessByStdio<null, Readable, Readable>;

/** What a child has printed so far; a runner may append its own notes (a timeout, a kill) to `output`. */
export interface CapturedOutput {
  stdout: string;
  stderr: string;
  output: string;
}

/** Collects a child's stdout and stderr, each on its own and both interleaved as they arrive. */
export function captureOutput(child: PipedChild): CapturedOutput {
  const captured: CapturedOutput = { stdout: '', stderr: '', output: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    captured.stdout += chunk;
    captured.output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    captured.stderr += chunk;
    captured.output += chunk;
  });
  return captured;
}

/** The result of a command that ended with `code` or `signal`, `startedAt` being when it was spawned. */
export function commandResult(
  command: string,
  cwd: string,
  startedAt: number,
  captured: CapturedOutput,
  code: number | null,
  signal: NodeJS.Signals | null,
): CommandResult {
  const { stdout, stderr, output } = captured;
  return { command, cwd, code, signal, stdout, stderr, output, durationMs: Date.now() - startedAt };
}

/** Commands started here that have not exited yet. */
const running = new Set<ChildProcess>();

/** Ends every command this module started that is still running, with the processes they started. */
export function killRunningCommands(): void {
  for (const child of running) killGroup(child.pid);
}

/**
 * Runs a command to completion and resolves with its result whatever the exit code (see {@link runChecked}).
 * The command runs in its own process group, so a timeout also ends the processes it started (npm runs scripts
 * and node-gyp in children).
 */
export function runCommand(file: string, args: readonly string[], options: RunOptions): Promise<CommandResult> {
  const command = showCommand(file, args);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.add(child);
    const captured = captureOutput(child);
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            captured.output += `\n[killed after ${options.timeoutMs} ms]\n`;
            killGroup(child.pid);
          }, options.timeoutMs);
    child.on('error', (error) => {
      if (timer) clearTimeout(timer);
      running.delete(child);
      reject(new Error(`cannot start \`${command}\` in ${options.cwd}: ${error.message}`, { cause: error }));
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      running.delete(child);
      resolve(commandResult(command, options.cwd, started, captured, code, signal));
    });
  });
}

/** Runs a command and rejects with a {@link CommandError} unless it exits 0. */
export async function runChecked(
  file: string,
  args: readonly string[],
  options: RunOptions & { readonly what?: string },
): Promise<CommandResult> {
  const result = await runCommand(file, args, options);
  if (result.code !== 0) throw new CommandError(result, options.what);
  return result;
}

/** Ends a detached child's whole process group; a group that is already gone is fine. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group has exited already.
  }
}
