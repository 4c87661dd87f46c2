import type { ProtocolError } from '@mqkit/core';

/** What a connection reports, as one typed stream (each event names the broker or name server address). */
export type RemotingEvent =
  /**
   * A socket to the address opened: the first one, or one after a drop (a reconnect, or a connection closed and
   * asked for again). Emitted before the requests that waited for it are written.
   */
  | { readonly type: 'connected'; readonly address: string }
  | { readonly type: 'disconnected'; readonly address: string; readonly error: Error | undefined }
  /** Bad bytes from the peer: the connection was closed and its pending requests rejected with `error`. */
  | { readonly type: 'protocol-error'; readonly address: string; readonly error: ProtocolError }
  | {
      readonly type: 'reconnect-scheduled';
      readonly address: string;
      readonly attempt: number;
      readonly delayMs: number;
    }
  /** A request from the peer whose handler threw; a sync request got SYSTEM_ERROR. */
  | { readonly type: 'request-handler-error'; readonly address: string; readonly code: number; readonly error: Error }
  /** A response nobody waits for any more (its request timed out or was aborted). */
  | { readonly type: 'unmatched-response'; readonly address: string; readonly opaque: number; readonly code: number };

export type RemotingEventType = RemotingEvent['type'];
