import type { TransportPlugin, TransportRoles } from '@mqkit/core';
import { brokerRequestHandler } from '../roles/broker-request.handler';
import { RocketMqBrokerOffsets } from '../roles/broker-offsets.role';
import { RocketMqClusterAdmin } from '../roles/cluster-admin.role';
import { CommitLedger } from '../roles/commit-ledger';
import { RocketMqGroupMembership } from '../roles/group-membership.role';
import { RocketMqMessagePuller } from '../roles/message-puller.role';
import { RocketMqMessageSender } from '../roles/message-sender.role';
import { RocketMqOffsetAdmin } from '../roles/offset-admin.role';
import { RocketMqQueueLocks } from '../roles/queue-locks.role';
import { RocketMqRetryChannel } from '../roles/retry-channel.role';
import { RocketMqSubscriptionCheck } from '../roles/subscription-check.role';
import { RocketMqTopicAdmin } from '../roles/topic-admin.role';
import { RocketMqSession } from './rocketmq-session';
import {
  checkTransportOptions,
  resolveTransportOptions,
  type RocketMqTransportOptions,
} from './rocketmq-transport.options';

/**
 * The RocketMQ transport: every role core needs, over RocketMQ's remoting protocol to a real cluster's name
 * servers and brokers (pure TypeScript, one multiplexed connection per address). Intervals come from the app's
 * profile (route refresh, request timeout); heartbeats are sent when core asks (every heartbeatIntervalMs).
 * Options are checked at once: bad ones throw ConfigurationError listing every problem.
 *
 * @example
 * ```ts
 * const app = await createConsumerApp({
 *   transport: rocketmqTransport({ nameServer: '127.0.0.1:9876;127.0.0.2:9876', credentials: { accessKey, secretKey } }),
 *   consumers: [OrderConsumer],
 * });
 * await app.start();
 * ```
 */
export function rocketmqTransport(options: RocketMqTransportOptions): TransportPlugin {
  checkTransportOptions(options);
  return {
    kind: 'transport',
    name: 'rocketmq',
    async connect(context): Promise<TransportRoles> {
      const session = new RocketMqSession(
        resolveTransportOptions(options, context.profile),
        context.clientId,
        context.events,
      );
      const membership = new RocketMqGroupMembership(session);
      const locks = new RocketMqQueueLocks(session);
      session.onBrokerRequest(brokerRequestHandler({ session, membership, locks, callbacks: context.callbacks }));
      session.start();
      return {
        routes: session.routes,
        membership,
        puller: new RocketMqMessagePuller(session),
        offsets: new RocketMqBrokerOffsets(session, new CommitLedger()),
        retry: new RocketMqRetryChannel(session),
        locks,
        sender: new RocketMqMessageSender(session),
        topicAdmin: new RocketMqTopicAdmin(session),
        offsetAdmin: new RocketMqOffsetAdmin(session),
        subscriptionCheck: new RocketMqSubscriptionCheck(session),
        clusterAdmin: new RocketMqClusterAdmin(session),
        close: async () => {
          membership.close();
          await session.close();
        },
      };
    },
  };
}
