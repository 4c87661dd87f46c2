import type { MessageQueue } from '@mqkit/core';
import type { RemotingEvent } from '../remoting/remoting-events';

/** A failure the RocketMQ transport recovered from by itself (a route refresh, a broker request it answered). */
export interface RocketMqTransportErrorEvent {
  /** The stage: `route-refresh`, `broker-request`, `remoting`. */
  readonly where: string;
  readonly error: Error;
  /** The name server or broker involved, when there is one. */
  readonly address?: string;
}

declare module '@mqkit/core' {
  interface MqkitEvents {
    /** Emitted by @mqkit/transport-rocketmq for failures it handled in the background. */
    'rocketmq.error': RocketMqTransportErrorEvent;
    /** Every connection event of the transport (connected, disconnected, reconnect-scheduled, ...). */
    'rocketmq.connection': RemotingEvent;
    /**
     * A queue's pulls move to another member of its broker name: the broker suggested it (suggestWhichBrokerId,
     * a slave while the consumer lags), or the master is gone and a slave serves.
     */
    'rocketmq.pull-broker': { readonly mq: MessageQueue; readonly brokerId: number; readonly address: string };
  }
}

/** Re-exported so the augmentation above is part of the package's types. */
export type { RemotingEvent };
