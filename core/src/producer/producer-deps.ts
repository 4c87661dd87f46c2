import type { EventBus } from '../events/event-bus';
import type { MessageSender, RouteResolver } from '../spi/transport.roles';
import type { ResolvedProducerOptions } from './producer-options';
import type { SendHook } from '../spi/send-hook';

/** What a Producer is built from: its resolved options, the transport's roles it sends through, and its hooks. */
export interface ProducerDeps {
  readonly options: ResolvedProducerOptions;
  readonly routes: RouteResolver;
  readonly sender: MessageSender;
  readonly events: EventBus;
  /** The client's id: a request names it as the connection its reply goes to. */
  readonly clientId?: string;
  /**
   * Makes this client known to the brokers as a member of the producer group before a request goes to `topic`:
   * a broker pushes a reply only to a connection registered by a producer heartbeat. Without it, no requests.
   */
  readonly registerRequester?: (topic: string) => Promise<void>;
  /** Wrap every producer call, first outermost: the producer option `hooks`, then plugins'. */
  readonly hooks?: readonly SendHook[];
}
