import { randomBytes } from 'node:crypto';

/**
 * A name no other test uses, for a topic, a group or an instance: `<prefix>_<time>_<random>`. It keeps to
 * RocketMQ's name rule (`[%|a-zA-Z0-9_-]`; no dot, which an ACL user's resource names refuse) when the prefix
 * does, and adds 18 characters to it. Tests that share a broker or a cluster stay apart by using fresh names.
 *
 * @example
 * ```ts
 * const topic = uniqueName('orders'); // orders_m1x2y3z4_9f86d081
 * ```
 */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}
