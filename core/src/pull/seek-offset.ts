import { ConfigurationError } from '../errors/configuration.error';
import { mqLabel, type MessageQueue } from '../model/message-queue';
import type { BrokerOffsets } from '../spi/transport.roles';

/**
 * `offset` if the broker holds it for `mq`, else a ConfigurationError. The max offset is allowed (it is where the
 * next message will be stored, so a seek there waits for new messages), as Java's seek allows it; Java's
 * "Seek offset illegal" wording is kept for those who search for it.
 */
export async function checkSeekOffset(offsets: BrokerOffsets, mq: MessageQueue, offset: number): Promise<number> {
  const [min, max] = await Promise.all([offsets.minOffset(mq), offsets.maxOffset(mq)]);
  if (!Number.isInteger(offset) || offset < min || offset > max) {
    throw new ConfigurationError({
      source: 'seek',
      option: 'offset',
      value: offset,
      allowed: `an offset of ${mqLabel(mq)} in [${min}, ${max}] (Seek offset illegal)`,
    });
  }
  return offset;
}
