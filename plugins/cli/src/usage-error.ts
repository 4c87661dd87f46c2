/**
 * What the user typed cannot run: a bad value, a missing option, an unreachable name server, a group or topic the
 * cluster does not know. The CLI prints the message and exits 2, as for commander's own parse errors, so scripts can
 * tell it apart from a failed operation (exit 1).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Exit statuses: 0 ok, 1 the operation failed, 2 bad usage or no cluster to talk to. */
export const EXIT = { OK: 0, FAILED: 1, USAGE: 2 } as const;
