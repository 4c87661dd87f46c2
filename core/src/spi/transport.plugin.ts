import type { EventBus } from '../events/event-bus';
import type { ClusterAdmin } from './cluster-admin.role';
import type { Profile } from '../options/profile';
import type {
  BrokerCallbacks,
  BrokerOffsets,
  GroupMembership,
  MessagePuller,
  MessageSender,
  OffsetAdmin,
  QueueLocks,
  RetryChannel,
  RouteResolver,
  SubscriptionCheck,
  TopicAdmin,
} from './transport.roles';

/** What core hands a transport when it connects. */
export interface TransportContext {
  /** `<ip>@<instanceName>` of the app, producer or admin client connecting. */
  readonly clientId: string;
  readonly profile: Profile;
  readonly events: EventBus;
  /**
   * Core's answers to requests a broker sends this client (offset resets, running info). Present for consumer
   * apps; producers and admin clients run no consumers and pass none.
   */
  readonly callbacks?: BrokerCallbacks;
}

/**
 * A connected transport: every role it supports, as one typed record (docs/architecture.md#transport-roles). The roles
 * every consumer needs are required, so the compiler checks that a transport is complete; the rest are optional and
 * core checks at start that the options in use have what they need.
 */
export interface TransportRoles {
  readonly routes: RouteResolver;
  readonly membership: GroupMembership;
  readonly puller: MessagePuller;
  readonly offsets: BrokerOffsets;
  /** CONSUMER_SEND_MSG_BACK: retries and dead letters of CONCURRENTLY consumers. */
  readonly retry?: RetryChannel;
  /** Broker queue locks: ORDERLY consumers and exclusive handoff. */
  readonly locks?: QueueLocks;
  /** Producers. */
  readonly sender?: MessageSender;
  readonly topicAdmin?: TopicAdmin;
  readonly offsetAdmin?: OffsetAdmin;
  /** CHECK_CLIENT_CONFIG: SQL92 subscriptions. */
  readonly subscriptionCheck?: SubscriptionCheck;
  /** Admin reads (consumer progress, topic stats, connections, message lookups) and subscription groups. */
  readonly clusterAdmin?: ClusterAdmin;
  /** Closes every connection; called once, after the consumers drained and the producer stopped. */
  close(): Promise<void>;
}

/** The optional roles, by their key in {@link TransportRoles}. */
export type OptionalRole =
  | 'retry'
  | 'locks'
  | 'sender'
  | 'topicAdmin'
  | 'offsetAdmin'
  | 'subscriptionCheck'
  | 'clusterAdmin';

/** SPI names of the roles, for "missing role" errors. */
export const ROLE_NAMES: Readonly<Record<OptionalRole, string>> = {
  retry: 'RetryChannel',
  locks: 'QueueLocks',
  sender: 'MessageSender',
  topicAdmin: 'TopicAdmin',
  offsetAdmin: 'OffsetAdmin',
  subscriptionCheck: 'SubscriptionCheck',
  clusterAdmin: 'ClusterAdmin',
};

/**
 * A broker transport: a value whose `connect` returns its roles. Nothing is registered by hand and nothing
 * registers itself at import time.
 *
 * @example
 * ```ts
 * const transport: TransportPlugin = {
 *   kind: 'transport',
 *   name: 'my-broker',
 *   async connect({ clientId, callbacks }) {
 *     const session = await openSession(clientId, callbacks);
 *     return { routes: session.routes, membership: session.membership, puller: session.puller, offsets: session.offsets, close: () => session.close() };
 *   },
 * };
 * ```
 */
export interface TransportPlugin {
  readonly kind: 'transport';
  readonly name: string;
  connect(context: TransportContext): Promise<TransportRoles>;
}
