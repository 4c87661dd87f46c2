interface Beat {
  /** What the heartbeat carried (the membership's content counter when it was sent). */
  readonly content: number;
  /** Resolves true when the broker took it; false when it failed (the entry is then gone). */
  readonly taken: Promise<boolean>;
  answered: boolean;
}

/**
 * The heartbeat each broker address got on its current connection, by address: what it carried, whether it is
 * still unanswered, whether the broker took it. A broker keeps a client's groups per channel and forgets them when
 * the channel closes, so an entry lasts as long as the connection it went out on. A failed heartbeat leaves no
 * entry: the address is owed one again.
 */
export class ConnectionBeats {
  readonly #beats = new Map<string, Beat>();

  /** Remembers a heartbeat sent to `address` that carried `content`; `answer` settles with the broker's answer. */
  record(address: string, content: number, answer: Promise<unknown>): void {
    const beat: Beat = {
      content,
      answered: false,
      taken: answer.then(
        () => {
          beat.answered = true;
          return true;
        },
        () => {
          beat.answered = true;
          if (this.#beats.get(address) === beat) this.#beats.delete(address);
          return false;
        },
      ),
    };
    this.#beats.set(address, beat);
  }

  /** True while a heartbeat to `address` is unanswered, or once the broker took one on the current connection. */
  has(address: string): boolean {
    return this.#beats.has(address);
  }

  /**
   * Whether the broker took a heartbeat on the current connection, waiting for one still unanswered; with
   * `content`, only a heartbeat that carried that content counts.
   */
  async taken(address: string, content?: number): Promise<boolean> {
    const beat = this.#beats.get(address);
    if (!beat || (content !== undefined && beat.content !== content)) return false;
    return beat.taken;
  }

  /**
   * A connection to `address` opened. True when no heartbeat waits for it, so it is owed one (a reconnect after a
   * drop, or a connection another request opened); false when a heartbeat sent meanwhile is what opened it (a
   * request waits for the connection being opened). One taken on an older connection is forgotten.
   */
  opened(address: string): boolean {
    if (this.#beats.get(address)?.answered === false) return false;
    this.#beats.delete(address);
    return true;
  }

  /**
   * A connection to `address` closed: a heartbeat the broker took went with it. One unanswered is left to settle:
   * it fails with the connection it went out on (and is forgotten then), or it waits for a newer connection (a
   * connection closed on purpose reports its close after its successor may have been asked for).
   */
  closed(address: string): void {
    if (this.#beats.get(address)?.answered) this.#beats.delete(address);
  }
}
