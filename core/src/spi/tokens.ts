import type { InjectionToken } from 'tsyringe';
import type {
  BrokerCallbacks,
  BrokerOffsets,
  GroupMembership,
  MessagePuller,
  MessageSender,
  QueueLocks,
  RetryChannel,
  RouteResolver,
  TopicAdmin,
  OffsetAdmin,
} from './transport.roles';
import type { OffsetStoreProvider } from './offset-store';
import type { AllocationStrategy } from './allocation-strategy';

// Symbol.for, so two copies of @mqkit/core in one process still agree on the tokens.
const token = <T>(name: string): InjectionToken<T> => Symbol.for(`mqkit.${name}`) as InjectionToken<T>;

/** Injection tokens of the SPI. Transport plugins register the roles they support. */
export const Tokens = {
  RouteResolver: token<RouteResolver>('RouteResolver'),
  GroupMembership: token<GroupMembership>('GroupMembership'),
  MessagePuller: token<MessagePuller>('MessagePuller'),
  BrokerOffsets: token<BrokerOffsets>('BrokerOffsets'),
  RetryChannel: token<RetryChannel>('RetryChannel'),
  QueueLocks: token<QueueLocks>('QueueLocks'),
  MessageSender: token<MessageSender>('MessageSender'),
  TopicAdmin: token<TopicAdmin>('TopicAdmin'),
  OffsetAdmin: token<OffsetAdmin>('OffsetAdmin'),
  /** Registered by core: the runtime's answers to broker-initiated requests, for transports to call. */
  BrokerCallbacks: token<BrokerCallbacks>('BrokerCallbacks'),
  OffsetStoreProvider: token<OffsetStoreProvider>('OffsetStoreProvider'),
  /** Multi-registration: every strategy a plugin offers by name. */
  AllocationStrategy: token<AllocationStrategy>('AllocationStrategy'),
} as const;

/** Human names of the transport roles, for "missing role" errors. */
export const TransportRoleNames: ReadonlyMap<InjectionToken<unknown>, string> = new Map<InjectionToken<unknown>, string>([
  [Tokens.RouteResolver, 'RouteResolver'],
  [Tokens.GroupMembership, 'GroupMembership'],
  [Tokens.MessagePuller, 'MessagePuller'],
  [Tokens.BrokerOffsets, 'BrokerOffsets'],
  [Tokens.RetryChannel, 'RetryChannel'],
  [Tokens.QueueLocks, 'QueueLocks'],
  [Tokens.MessageSender, 'MessageSender'],
  [Tokens.TopicAdmin, 'TopicAdmin'],
  [Tokens.OffsetAdmin, 'OffsetAdmin'],
]);
