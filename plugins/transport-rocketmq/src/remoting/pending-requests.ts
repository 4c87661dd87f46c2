import { TimeoutError } from '@mqkit/core';
import type { RemotingCommand } from '../protocol/remoting-command';

/** One request waiting for its answer: the promise's own settle functions, its timer and its abort listener. */
interface Entry {
  readonly resolve: (response: RemotingCommand) => void;
  readonly reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * Requests sent and not yet answered, by opaque. Each one ends exactly once: answered, timed out (TimeoutError),
 * aborted (the signal's reason) or rejected with the connection's failure. Every pull is one of these, so an entry
 * holds the promise's settle functions as they are (no wrappers): two closures per request, the timer's and the
 * abort listener's, and the latter only with a signal.
 */
export class PendingRequests {
  private readonly table = new Map<number, Entry>();

  get size(): number {
    return this.table.size;
  }

  has(opaque: number): boolean {
    return this.table.has(opaque);
  }

  /** Registers a request; the promise settles when {@link settle} or {@link rejectAll} is called, or on timeout/abort. */
  add(
    opaque: number,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    describe: () => string,
  ): Promise<RemotingCommand> {
    return new Promise<RemotingCommand>((resolve, reject) => {
      const entry: Entry = { resolve, reject, timer: undefined, signal, onAbort: undefined };
      entry.timer = setTimeout(
        () => {
          if (this.end(opaque, entry)) reject(new TimeoutError(`${describe()} got no answer within ${timeoutMs} ms`));
        },
        Math.max(0, timeoutMs),
      );
      if (signal) {
        entry.onAbort = () => {
          if (this.end(opaque, entry)) reject(signal.reason);
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.table.set(opaque, entry);
    });
  }

  /** Hands a response to its request; false when nobody waits for that opaque any more. */
  settle(opaque: number, response: RemotingCommand): boolean {
    const entry = this.table.get(opaque);
    if (!entry || !this.end(opaque, entry)) return false;
    entry.resolve(response);
    return true;
  }

  /** Fails one request (e.g. its frame could not be written). */
  reject(opaque: number, error: unknown): void {
    const entry = this.table.get(opaque);
    if (entry && this.end(opaque, entry)) entry.reject(error);
  }

  /** Fails every request still waiting (connection lost or closed). */
  rejectAll(error: unknown): void {
    for (const [opaque, entry] of [...this.table.entries()]) if (this.end(opaque, entry)) entry.reject(error);
  }

  /** Takes the entry out with its timer and listener; false when it already ended (or the opaque was reused). */
  private end(opaque: number, entry: Entry): boolean {
    if (this.table.get(opaque) !== entry) return false;
    this.table.delete(opaque);
    clearTimeout(entry.timer);
    if (entry.onAbort) entry.signal!.removeEventListener('abort', entry.onAbort);
    return true;
  }
}
