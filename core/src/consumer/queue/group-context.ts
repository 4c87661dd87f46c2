import type { EventBus } from '../../events/event-bus';
import type { ResolvedGroupOptions } from '../../options/consumer-options';
import type { Profile } from '../../options/profile';
import type { ByteBudget } from './byte-budget';
import { ConsumeStats } from './consume-stats';

/**
 * The facts every part of one consumer group shares, passed as one object (docs/architecture.md#ownership-rules): each
 * class takes this plus the few collaborators it calls, instead of a bag of a dozen fields.
 */
export interface GroupContext {
  readonly group: string;
  readonly clientId: string;
  readonly options: ResolvedGroupOptions;
  readonly profile: Profile;
  readonly events: EventBus;
  /** The app-wide cap on cached message bytes. */
  readonly budget: ByteBudget;
  /** RocketMQ's namespace of the client: messages show their topic without it. */
  readonly namespace?: string;
  /** Pull and consume figures per topic (GET_CONSUMER_RUNNING_INFO's statusTable). */
  readonly stats: ConsumeStats;
  /** Aborted when the group stops pulling (stop, crash): the parent of every queue's signal. */
  readonly signal: AbortSignal;
}

/** A group's context from its facts; its figures start empty. Consumer apps and pull consumers both make theirs here. */
export function groupContext(facts: Omit<GroupContext, 'stats'>): GroupContext {
  return { ...facts, stats: new ConsumeStats() };
}
