import type { RemotingCommand } from '../protocol/remoting-command';

/** A request to send: the connection adds opaque, flag, language, version and (with credentials) the signature. */
export interface OutgoingRequest {
  readonly code: number;
  readonly extFields?: Readonly<Record<string, string | number | boolean | bigint | undefined | null>>;
  readonly body?: Buffer;
  readonly remark?: string;
  /**
   * extFields sent but left out of the ACL signature, for a broker that leaves them out of its own check (a 4.x
   * broker never signs `_UNIQUE_KEY_QUERY`); the broker recomputes the signature without them.
   */
  readonly unsignedFields?: readonly string[];
}

/** Per-request options. */
export interface RequestOptions {
  /** Time for connecting (if needed), sending and the answer together. */
  readonly timeoutMs: number;
  /** Abort ends the wait (a held long-poll pull, a stopping consumer); the late answer is ignored. */
  readonly signal?: AbortSignal;
}

/** The answer a handler gives to a request the peer sent; undefined means "not supported". */
export interface RemotingReply {
  readonly code: number;
  readonly remark?: string;
  readonly extFields?: Readonly<Record<string, string | number | boolean | bigint | undefined | null>>;
  readonly body?: Buffer;
}

/**
 * Answers requests the broker sends on the client's connection (NOTIFY_CONSUMER_IDS_CHANGED,
 * RESET_CONSUMER_CLIENT_OFFSET, GET_CONSUMER_RUNNING_INFO, ...). The reply of a oneway request is not sent.
 * Returning undefined for a sync request answers REQUEST_CODE_NOT_SUPPORTED; throwing answers SYSTEM_ERROR.
 */
export type RemotingRequestHandler = (
  request: RemotingCommand,
  context: { readonly address: string },
) => RemotingReply | undefined | Promise<RemotingReply | undefined>;
