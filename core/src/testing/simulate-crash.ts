import { CRASH, type ConsumerApp } from '../app/consumer-app';

/**
 * Kills an app as a SIGKILL would, for failure tests: no drain, no commit, no unlock, no unregister; its
 * connection to the broker closes. Whatever it had consumed but not committed is delivered again elsewhere.
 */
export function simulateCrash(app: ConsumerApp): Promise<void> {
  return app[CRASH]();
}
