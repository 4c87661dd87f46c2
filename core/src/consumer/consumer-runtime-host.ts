import type { EventBus } from '../events/event-bus';
import type { MessageQueue } from '../model/message-queue';
import type { Profile } from '../options/profile';
import type { ConsumeHook } from '../spi/consume-hook';
import type { TransportRoles } from '../spi/transport.plugin';
import type { ByteBudget } from './queue/byte-budget';

/** What the app gives each of its consumer groups. */
export interface ConsumerRuntimeHost {
  readonly clientId: string;
  readonly profile: Profile;
  readonly events: EventBus;
  readonly budget: ByteBudget;
  /** The app's signal: aborted when the app stops or crashes. */
  readonly signal: AbortSignal;
  readonly transport: TransportRoles;
  readonly hooks: readonly ConsumeHook[];
  /** RocketMQ's namespace of the app (definitions arrive already wrapped in it). */
  readonly namespace?: string;
  /** The owned queues changed: the app heartbeats so the broker learns it. */
  onAssignmentChanged(): void;
  messageQueueChanged?(
    group: string,
    topic: string,
    mqAll: readonly MessageQueue[],
    allocated: readonly MessageQueue[],
  ): void;
}
