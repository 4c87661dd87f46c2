import type { RouteResolver } from '../spi/transport.roles';

/**
 * The producer's `registerRequester`: before the first request to a topic, its route is fetched (so the transport
 * knows the topic's brokers) and a heartbeat that carries the producer group is sent, so that each of those brokers
 * has this client's connection when the reply comes. Once per topic; a failed attempt is tried again next time.
 */
export function requesterRegistration(
  routes: RouteResolver,
  heartbeat: () => Promise<void>,
): (topic: string) => Promise<void> {
  const registered = new Map<string, Promise<void>>();
  return (topic) => {
    let done = registered.get(topic);
    if (!done) {
      done = (async () => {
        await routes.publishQueues(topic);
        await heartbeat();
      })();
      registered.set(topic, done);
      done.catch(() => registered.delete(topic));
    }
    return done;
  };
}
