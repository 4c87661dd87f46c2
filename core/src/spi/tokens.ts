import type { InjectionToken } from 'tsyringe';
import type {
  BrokerOffsets,
  GroupMembership,
  MessagePuller,
  MessageSender,
  OffsetAdmin,
  QueueLocks,
  RetryChannel,
  RouteResolver,
  TopicAdmin,
} from './transport.roles';
import type { OffsetStoreProvider } from './offset-store';
import type { AllocationStrategy } from './allocation-strategy';
import type { ConsumeHook } from './consume-hook';
import type { SendHook } from './send-hook';

// Symbol.for, so two copies of @mqkit/core in one process still agree on the tokens.
const token = <T>(name: string): InjectionToken<T> => Symbol.for(`mqkit.${name}`) as InjectionToken<T>;

/**
 * Injection tokens. The transport roles are registered by core from the connected transport's record (so
 * application code can inject them); plugins register offset store providers and allocation strategies.
 */
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
  OffsetStoreProvider: token<OffsetStoreProvider>('OffsetStoreProvider'),
  /** Multi-registration: every strategy a plugin offers by name. */
  AllocationStrategy: token<AllocationStrategy>('AllocationStrategy'),
  /** Multi-registration: handler-call hooks a plugin adds (tracing, metrics), after the app's `hooks`. */
  ConsumeHook: token<ConsumeHook>('ConsumeHook'),
  /** Multi-registration: producer-call hooks a plugin adds, after the producer's `hooks`. */
  SendHook: token<SendHook>('SendHook'),
} as const;

/** Every value registered under a multi-registration token, or none. */
export function resolveAllOf<T>(container: import('tsyringe').DependencyContainer, t: InjectionToken<T>): T[] {
  return container.isRegistered(t, true) ? container.resolveAll(t) : [];
}
