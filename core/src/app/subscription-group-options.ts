import { ConfigurationError } from '../errors/configuration.error';
import { GROUP_MAX_LENGTH, IssueCollector, checkName } from '../options/option-checks';
import type { SubscriptionGroupSettings } from '../spi/cluster-admin.role';

/**
 * `admin.createSubscriptionGroup` options: RocketMQ's SubscriptionGroupConfig fields by their Java names. An
 * option left out takes SubscriptionGroupConfig's default, which is also what a broker with
 * autoCreateSubscriptionGroup creates; note that `mqadmin updateSubGroup` instead defaults consumeFromMinEnable
 * and consumeBroadcastEnable to false. The broker replaces the whole config, so each call states every field.
 */
export interface SubscriptionGroupOptions {
  /** Members may pull (default true); false refuses their pulls with NO_PERMISSION. */
  readonly consumeEnable?: boolean;
  /** Stored for tools (default true); the 5.3.3 broker itself does not act on it. */
  readonly consumeFromMinEnable?: boolean;
  /** BROADCASTING members may pull (default true). */
  readonly consumeBroadcastEnable?: boolean;
  /** Marks the group orderly for pop/proxy consumers (default false); push members' own consume mode decides how they consume. */
  readonly consumeMessageOrderly?: boolean;
  /** Queues of `%RETRY%<group>` (default 1). */
  readonly retryQueueNums?: number;
  /** Re-deliveries before the DLQ when a member's send-back names none (default 16). */
  readonly retryMaxTimes?: number;
  /** The broker id members read from (default 0, the master). */
  readonly brokerId?: number;
  /** The broker id members are sent to read from when they fall behind (default 1). */
  readonly whichBrokerWhenConsumeSlowly?: number;
  /** The broker notifies members of membership changes (default true). */
  readonly notifyConsumerIdsChangedEnable?: boolean;
  /** Used by RocketMQ's proxy for pop consumers, in minutes (default 15). */
  readonly consumeTimeoutMinute?: number;
  /** Only these brokers (by name); default every master. */
  readonly brokers?: readonly string[];
}

const INT32_MAX = 0x7fffffff;

/** The settings to send, or a ConfigurationError listing every invalid option. */
export function subscriptionGroupSettings(
  groupName: string,
  options: SubscriptionGroupOptions,
): SubscriptionGroupSettings {
  const issues = new IssueCollector('createSubscriptionGroup');
  checkName(issues, 'group', groupName, GROUP_MAX_LENGTH);
  for (const key of [
    'consumeEnable',
    'consumeFromMinEnable',
    'consumeBroadcastEnable',
    'consumeMessageOrderly',
    'notifyConsumerIdsChangedEnable',
  ] as const) {
    issues.boolean(key, options[key]);
  }
  issues.intRange('retryQueueNums', options.retryQueueNums, 1, 1024);
  issues.intRange('retryMaxTimes', options.retryMaxTimes, 0, INT32_MAX);
  issues.intRange('brokerId', options.brokerId, 0, INT32_MAX);
  issues.intRange('whichBrokerWhenConsumeSlowly', options.whichBrokerWhenConsumeSlowly, 0, INT32_MAX);
  issues.intRange('consumeTimeoutMinute', options.consumeTimeoutMinute, 1, INT32_MAX);
  if (
    options.brokers !== undefined &&
    (!Array.isArray(options.brokers) ||
      options.brokers.length === 0 ||
      options.brokers.some((b) => typeof b !== 'string' || b === ''))
  ) {
    issues.add('brokers', options.brokers, 'a non-empty list of broker names');
  }
  if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
  return {
    groupName,
    consumeEnable: options.consumeEnable ?? true,
    consumeFromMinEnable: options.consumeFromMinEnable ?? true,
    consumeBroadcastEnable: options.consumeBroadcastEnable ?? true,
    consumeMessageOrderly: options.consumeMessageOrderly ?? false,
    retryQueueNums: options.retryQueueNums ?? 1,
    retryMaxTimes: options.retryMaxTimes ?? 16,
    brokerId: options.brokerId ?? 0,
    whichBrokerWhenConsumeSlowly: options.whichBrokerWhenConsumeSlowly ?? 1,
    notifyConsumerIdsChangedEnable: options.notifyConsumerIdsChangedEnable ?? true,
    consumeTimeoutMinute: options.consumeTimeoutMinute ?? 15,
  };
}
