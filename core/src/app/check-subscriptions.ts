import type { ConsumerDefinition } from '../definition/consumer-definition';
import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { SubscriptionRejectedError } from '../errors/subscription-rejected.error';
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
      if (sub.subscription.expressionType === 'TAG') continue;
      const source = sub.handler.className;
      const role = host.roles.subscriptionCheck;
      if (!role) {
        issues.push(host.missing('subscriptionCheck', `the sql subscription of group ${definition.group}`, source)!);
        continue;
      }
      try {
        await role.check(definition.group, sub.subscription);
      } catch (error) {
        if (!(error instanceof SubscriptionRejectedError)) throw error;
        issues.push({
          source,
          option: 'sql',
          value: sub.subscription.expression,
          allowed: error.setting
            ? `an SQL92 filter on brokers with ${error.setting}=true (broker ${error.brokerName} has it off: "${error.remark}")`
            : `an expression broker ${error.brokerName} accepts (it answered: "${error.remark}")`,
        });
      }
    }
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
}
