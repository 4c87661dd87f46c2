import type { AclCredentials } from './acl-signature';

/** What one broker's broker.conf is made from. */
export interface BrokerConfigInput {
  readonly clusterName: string;
  readonly brokerName: string;
  readonly listenPort: number;
  readonly namesrvAddr: string;
  readonly storeRoot: string;
  /** RocketMQ refuses to start without ROCKETMQ_HOME; `rocketmqHome` in the file satisfies that (its contents are unused). */
  readonly rocketmqHome: string;
  readonly acl?: AclCredentials;
  /** Extra or overriding broker.conf keys. */
  readonly overrides?: Readonly<Record<string, string>>;
}

/** Eighteen levels (RocketMQ's count) of one second each, so retries come back in 1 s instead of 10 s, 30 s, 1 m… */
export const FAST_DELAY_LEVELS = Array.from({ length: 18 }, () => '1s').join(' ');

/** Java properties text: `key=value` lines; values here never need escaping beyond backslashes. */
export function renderProperties(entries: Readonly<Record<string, string>>): string {
  return `${Object.entries(entries)
    .map(([key, value]) => `${key}=${value.replace(/\\/g, '\\\\')}`)
    .join('\n')}\n`;
}

/**
 * broker.conf for a small, fast test broker on loopback. Notes on the choices (verified on 5.3.3):
 * - `listenPort` from the file is honoured (the develop-branch bug that forced 10911 never reached a release);
 *   the broker also binds listenPort − 2 (fast server, on `bindAddress`) and listenPort + 1 (HA, always 0.0.0.0).
 * - `brokerIP1` is what the name server hands to clients; its default is the first non-loopback address.
 * - 64 MiB commit-log files instead of 1 GiB; no timer wheel (no 100 MiB timer log; delay levels still work).
 * - `autoCreateTopicEnable=false`: tests create their topics, as production clusters require.
 * - `waitTimeMillsInSendQueue=1000` (default 200): a send that waits longer in the broker's queue is refused with
 *   SYSTEM_BUSY "[TIMEOUT_CLEAN_QUEUE]"; on a shared 2-core box 200 ms is hit by bursts of 1,000 async sends.
 * - ACL 2.0 (the only ACL in 5.3.x; plain_acl.yml/`aclEnable` is gone): authentication and authorization on,
 *   the given credentials become a SUPER user, also used by the broker's own inner clients.
 */
export function renderBrokerConfig(input: BrokerConfigInput): string {
  const entries: Record<string, string> = {
    brokerClusterName: input.clusterName,
    brokerName: input.brokerName,
    brokerId: '0',
    brokerRole: 'ASYNC_MASTER',
    flushDiskType: 'ASYNC_FLUSH',
    listenPort: String(input.listenPort),
    bindAddress: '127.0.0.1',
    brokerIP1: '127.0.0.1',
    namesrvAddr: input.namesrvAddr,
    rocketmqHome: input.rocketmqHome,
    storePathRootDir: input.storeRoot,
    storePathCommitLog: `${input.storeRoot}/commitlog`,
    mappedFileSizeCommitLog: String(64 * 1024 * 1024),
    timerWheelEnable: 'false',
    autoCreateTopicEnable: 'false',
    autoCreateSubscriptionGroup: 'true',
    waitTimeMillsInSendQueue: '1000',
    messageDelayLevel: FAST_DELAY_LEVELS,
  };
  if (input.acl) {
    Object.assign(entries, {
      authenticationEnabled: 'true',
      authenticationMetadataProvider: 'org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider',
      authorizationEnabled: 'true',
      authorizationMetadataProvider: 'org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider',
      initAuthenticationUser: JSON.stringify({ username: input.acl.accessKey, password: input.acl.secretKey }),
      innerClientAuthenticationCredentials: JSON.stringify({ accessKey: input.acl.accessKey, secretKey: input.acl.secretKey }),
    });
  }
  return renderProperties({ ...entries, ...input.overrides });
}

/** The name server's config file: port, loopback bind and ROCKETMQ_HOME (see {@link BrokerConfigInput.rocketmqHome}). */
export function renderNamesrvConfig(input: { listenPort: number; rocketmqHome: string }): string {
  return renderProperties({ listenPort: String(input.listenPort), bindAddress: '127.0.0.1', rocketmqHome: input.rocketmqHome });
}
