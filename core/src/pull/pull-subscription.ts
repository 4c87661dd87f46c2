import { checkSubscription } from '../app/check-subscriptions';
import type { ClientHost } from '../app/client-host';
import { ConfigurationError } from '../errors/configuration.error';
import { parseSubscription, sqlSubscription, type SubscriptionData } from '../model/subscription';

/**
 * The subscription `PullConsumer.subscribe` asks for: by TAG (`tags`) or by SQL92 (`sql`), never both, as a
 * MessageSelector is one or the other. An SQL92 one is checked with the brokers first, as a push consumer's are at
 * start, so a broker without enablePropertyFilter fails the subscribe rather than every pull.
 */
export async function pullSubscription(
  host: ClientHost,
  group: string,
  topic: string,
  options: { readonly tags?: string; readonly sql?: string },
): Promise<SubscriptionData> {
  if (options.tags !== undefined && options.sql !== undefined) {
    throw new ConfigurationError({
      source: 'subscribe',
      option: 'sql',
      value: options.sql,
      allowed: 'no sql when tags is given: a subscription filters by TAG or by SQL92, not both',
    });
  }
  const subscription =
    options.sql !== undefined ? sqlSubscription(topic, options.sql) : parseSubscription(topic, options.tags);
  const issue = await checkSubscription(host, group, subscription, 'subscribe');
  if (issue) throw new ConfigurationError(issue);
  return subscription;
}
