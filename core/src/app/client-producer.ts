import { Producer } from '../producer/producer';
import type { ResolvedProducerOptions } from '../producer/producer-options';
import { Tokens, resolveAllOf } from '../spi/tokens';
import type { MessageSender, RouteResolver } from '../spi/transport.roles';
import { MessageTrace } from '../trace/message-trace';
import type { ClientHost } from './client-host';
import { requesterRegistration } from './requester-registration';

/** A client's producer and, with `enableMsgTrace`, the message trace its send hooks feed. */
export interface ClientProducer {
  readonly producer: Producer;
  readonly trace: MessageTrace | undefined;
  /** Waits for the sends in flight, then sends the queued trace records. */
  stop(): Promise<void>;
}

/**
 * The one way a client (a consumer app's `producer`, createProducer) builds its Producer: the option's hooks
 * first, then the plugins', then the message trace's (innermost, so its cost is the send's own).
 */
export function clientProducer(
  host: ClientHost,
  options: ResolvedProducerOptions,
  routes: RouteResolver,
  sender: MessageSender,
  heartbeatNow: () => Promise<void>,
): ClientProducer {
  const trace =
    options.trace &&
    new MessageTrace({ group: options.group, type: 'PRODUCE' }, options.trace, {
      routes,
      sender,
      events: host.events,
      clientId: host.clientId,
    });
  const producer = new Producer({
    options,
    hooks: [
      ...options.hooks,
      ...resolveAllOf(host.container, Tokens.SendHook),
      ...(trace ? [trace.sendHook(options.codec)] : []),
    ],
    routes,
    sender,
    events: host.events,
    clientId: host.clientId,
    registerRequester: requesterRegistration(routes, heartbeatNow),
  });
  return {
    producer,
    trace,
    stop: async () => {
      await producer.stop();
      await trace?.stop();
    },
  };
}
