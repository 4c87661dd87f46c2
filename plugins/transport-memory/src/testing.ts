import { DEFAULT_DELAY_LEVELS_MS } from '@mqkit/core';
import { EmbeddedBroker, type EmbeddedBrokerOptions } from './embedded-broker';

/**
 * An embedded broker on test clocks: delay levels 100x shorter, 1 s broker locks, 1.5 s channel expiry. Pair it
 * with the app's `profile: 'fast'`.
 */
export function fastBroker(options: EmbeddedBrokerOptions = {}): EmbeddedBroker {
  return new EmbeddedBroker({
    delayLevelsMs: DEFAULT_DELAY_LEVELS_MS,
    delayTimeScale: 0.01,
    lockExpiryMs: 1_000,
    channelExpiryMs: 1_500,
    ...options,
  });
}
