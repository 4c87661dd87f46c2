import { TimeoutError } from '@mqkit/core';
import type { RemotingCommand } from '../protocol/remoting-command';

interface Entry {
  readonly resolve: (response: RemotingCommand) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Requests sent and not yet answered, by opaque. Each one ends exactly once: answered, timed out (TimeoutError),
 * aborted (the signal's reason) or rejected with the connection's failure.
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
  add(opaque: number, timeoutMs: number, signal: AbortSignal | undefined, describe: () => string): Promise<RemotingCommand> {
    return new Promise<RemotingCommand>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.table.delete(opaque);
      };
      const onAbort = (): void => {
        finish();
        reject(signal!.reason);
      };
      const timer = setTimeout(() => {
        finish();
        reject(new TimeoutError(`${describe()} got no answer within ${timeoutMs} ms`));
      }, Math.max(0, timeoutMs));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.table.set(opaque, {
        resolve: (response) => {
          finish();
          resolve(response);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
    });
  }

  /** Hands a response to its request; false when nobody waits for that opaque any more. */
  settle(opaque: number, response: RemotingCommand): boolean {
    const entry = this.table.get(opaque);
    if (!entry) return false;
    entry.resolve(response);
    return true;
  }

  /** Fails one request (e.g. its frame could not be written). */
  reject(opaque: number, error: unknown): void {
    this.table.get(opaque)?.reject(error);
  }

  /** Fails every request still waiting (connection lost or closed). */
  rejectAll(error: unknown): void {
    for (const entry of [...this.table.values()]) entry.reject(error);
  }
}
