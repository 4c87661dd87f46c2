import type { Cluster, Redis } from 'ioredis';

/** What a store hears of its client's connection. */
export interface ConnectionWatcher {
  /** A failed (re)connect attempt or a connection error. */
  error(error: Error): void;
  /** The connection closed (ioredis may reconnect). */
  close(): void;
  /** Connected and ready for commands. */
  ready(): void;
}

const EVENTS = ['error', 'close', 'ready'] as const;

/** The stores watching one client, and the one listener per event that relays to them. */
interface Relay {
  readonly watchers: Set<ConnectionWatcher>;
  readonly listeners: ReadonlyArray<readonly [(typeof EVENTS)[number], (error: Error) => void]>;
}
const relays = new WeakMap<Redis | Cluster, Relay>();

/**
 * Subscribes a store to a client's connection events; returns the unsubscribe. Every store of one client shares
 * one listener per event, so an app client serving many consumer groups does not collect listeners (Node warns
 * past ten per event), and the last unsubscribe leaves the client with none of the store's.
 */
export function watchConnection(client: Redis | Cluster, watcher: ConnectionWatcher): () => void {
  let relay = relays.get(client);
  if (!relay) {
    const watchers = new Set<ConnectionWatcher>();
    const listeners = EVENTS.map((event) => {
      const listener = (error: Error): void => {
        for (const w of watchers) event === 'error' ? w.error(error) : w[event]();
      };
      return [event, listener] as const;
    });
    relay = { watchers, listeners };
    relays.set(client, relay);
    for (const [event, listener] of listeners) client.on(event, listener);
  }
  const { watchers, listeners } = relay;
  watchers.add(watcher);
  return () => {
    if (!watchers.delete(watcher) || watchers.size > 0) return;
    for (const [event, listener] of listeners) client.off(event, listener);
    relays.delete(client);
  };
}
