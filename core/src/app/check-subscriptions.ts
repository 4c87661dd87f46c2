import type { ConsumerDefinition } from '../definition/consumer-definition';
import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { SubscriptionRejectedError } from '../errors/subscription-rejected.error';
import type { SubscriptionData } from '../model/subscription';
import type { ClientHost } from './client-host';

/**
 * Asks the brokers, before anything consumes, whether they can run each subscription that is not a TAG filter
 * (RocketMQ's checkClientInBroker at consumer start). A broker that cannot (SQL92 without enablePropertyFilter)
 * fails the start with a ConfigurationError naming the option, the broker and its setting, instead of every pull
 * failing later.
 */
export async function checkSubscriptions(definitions: readonly ConsumerDefinition[], host: ClientHost): Promise<void> {
  const issues: ConfigurationIssue[] = [];
  for (const definition of definitions) {
    for (const sub of definition.subscriptions) {
      const issue = await checkSubscription(host, definition.group, sub.subscription, sub.handler.className);
      if (issue) issues.push(issue);
    }
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
}

/** One subscription's check; undefined when the brokers accept it (TAG subscriptions need no check). */
export async function checkSubscription(
  host: ClientHost,
  group: string,
  subscription: SubscriptionData,
  source: string,
): Promise<ConfigurationIssue | undefined> {
  if (subscription.expressionType === 'TAG') return undefined;
  const role = host.roles.subscriptionCheck;
  if (!role) return host.missing('subscriptionCheck', `the sql subscription of group ${group}`, source);
  try {
    await role.check(group, subscription);
    return undefined;
  } catch (error) {
    if (!(error instanceof SubscriptionRejectedError)) throw error;
    return {
      source,
      option: 'sql',
      value: subscription.expression,
      allowed: error.setting
        ? `an SQL92 filter on brokers with ${error.setting}=true (broker ${error.brokerName} has it off: "${error.remark}")`
        : `an expression broker ${error.brokerName} accepts (it answered: "${error.remark}")`,
    };
  }
}
