import { Tokens, type BrokerCallbacks, type TransportPlugin } from '@mqkit/core';
import { brokerRequestHandler } from '../roles/broker-request.handler';
import { RocketMqBrokerOffsets } from '../roles/broker-offsets.role';
import { CommitLedger } from '../roles/commit-ledger';
import { RocketMqGroupMembership } from '../roles/group-membership.role';
import { RocketMqMessagePuller } from '../roles/message-puller.role';
import { RocketMqMessageSender } from '../roles/message-sender.role';
import { RocketMqOffsetAdmin } from '../roles/offset-admin.role';
import { RocketMqQueueLocks } from '../roles/queue-locks.role';
import { RocketMqRetryChannel } from '../roles/retry-channel.role';
import { RocketMqTopicAdmin } from '../roles/topic-admin.role';
import { RocketMqSession } from './rocketmq-session';
import { checkTransportOptions, resolveTransportOptions, type RocketMqTransportOptions } from './rocketmq-transport.options';

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
    register(container, context) {
      const session = new RocketMqSession(resolveTransportOptions(options, context.profile), context.clientId, context.events);
      const membership = new RocketMqGroupMembership(session);
      const locks = new RocketMqQueueLocks(session);
      const ledger = new CommitLedger();
      // Resolved when a broker asks: the app registers its callbacks before the transport, a producer has none.
      const callbacks = (): BrokerCallbacks | undefined => (container.isRegistered(Tokens.BrokerCallbacks, true) ? container.resolve(Tokens.BrokerCallbacks) : undefined);
      session.onBrokerRequest(brokerRequestHandler({ session, membership, locks, callbacks }));
      container.register(Tokens.RouteResolver, { useValue: session.routes });
      container.register(Tokens.GroupMembership, { useValue: membership });
      container.register(Tokens.MessagePuller, { useValue: new RocketMqMessagePuller(session, ledger, (group) => locks.usesLocks(group)) });
      container.register(Tokens.BrokerOffsets, { useValue: new RocketMqBrokerOffsets(session, ledger) });
      container.register(Tokens.RetryChannel, { useValue: new RocketMqRetryChannel(session) });
      container.register(Tokens.QueueLocks, { useValue: locks });
      container.register(Tokens.MessageSender, { useValue: new RocketMqMessageSender(session) });
      container.register(Tokens.TopicAdmin, { useValue: new RocketMqTopicAdmin(session) });
      container.register(Tokens.OffsetAdmin, { useValue: new RocketMqOffsetAdmin(session) });
      session.start();
      context.addTeardown(async () => {
        membership.close();
        await session.close();
      });
    },
  };
}
