import type { AclCredentials } from './acl-signature';
import { ROCKETMQ_RELEASES, type RocketMqReleaseTraits } from './rocketmq-releases';

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
  /** A member of a replicated broker name; absent: the only member, a master (brokerId 0, ASYNC_MASTER). */
  readonly member?: ReplicaMember;
  /** Extra or overriding broker.conf keys. */
  readonly overrides?: Readonly<Record<string, string>>;
  /** The release the file is for (default 5.3.3's traits): its ACL model and the keys it lacks. */
  readonly release?: RocketMqReleaseTraits;
}

/** How one broker of a replicated broker name is configured. */
export type ReplicaMember =
  | {
      /** Master/slave with fixed roles: brokerId 0 is the master, 1 its slave (HA from the master's listenPort + 1). */
      readonly mode: 'classic';
      readonly brokerId: number;
      readonly replication: 'ASYNC' | 'SYNC';
      readonly slaveReadEnable: boolean;
    }
  | {
      /** RocketMQ 5's controller mode: the controller assigns ids and elects the master from the sync-state set. */
      readonly mode: 'controller';
      readonly controllerAddr: string;
      readonly slaveReadEnable: boolean;
    };

/** broker.conf keys of a replica member (see {@link ReplicaMember}); checked against 5.3.3's BrokerConfig/MessageStoreConfig. */
export function replicaEntries(member: ReplicaMember, storeRoot: string): Record<string, string> {
  const reads = { slaveReadEnable: String(member.slaveReadEnable) };
  if (member.mode === 'controller') {
    return {
      ...reads,
      enableControllerMode: 'true',
      controllerAddr: member.controllerAddr,
      // Ids come from the controller; the role it starts with is SLAVE until elected.
      brokerId: '-1',
      brokerRole: 'SLAVE',
      storePathEpochFile: `${storeRoot}/epochFileCheckpoint`,
      storePathBrokerIdentity: `${storeRoot}/brokerIdentity`,
      // A send is acknowledged once every member of the sync-state set has it: a promoted slave has all of it.
      allAckInSyncStateSet: 'true',
    };
  }
  if (member.brokerId !== 0) return { ...reads, brokerId: String(member.brokerId), brokerRole: 'SLAVE' };
  return {
    ...reads,
    brokerId: '0',
    brokerRole: member.replication === 'SYNC' ? 'SYNC_MASTER' : 'ASYNC_MASTER',
    // 5.3.3's SYNC_MASTER waits for a slave only when inSyncReplicas > 1 (CommitLog.handleHA returns at once for
    // 1, the default); then a send the slave does not confirm within slaveTimeout (3 s) is FLUSH_SLAVE_TIMEOUT.
    ...(member.replication === 'SYNC' ? { inSyncReplicas: '2', totalReplicas: '2' } : {}),
  };
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
 * - 64 MiB commit-log files instead of 1 GiB; the timer wheel on (RocketMQ 5's timer messages) with an 8 MiB timer
 *   log instead of 100 MiB; delay levels still go through the schedule service.
 * - `autoCreateTopicEnable=false`: tests create their topics, as production clusters require.
 * - `enablePropertyFilter=true` (RocketMQ's default is false): SQL92 subscriptions.
 * - `traceTopicEnable=true` (default false): the broker creates RMQ_SYS_TRACE_TOPIC (one queue) for message trace.
 * - Transaction check-backs every 1 s for half messages older than 2 s, at most 3 times (RocketMQ: 30 s, 6 s, 15),
 *   and transaction ends recorded every 100 ms (transactionOpBatchInterval, RocketMQ: 3 s): a check interval below
 *   the op interval makes the broker ask again about a message already committed, and commit it once per answer.
 * - `waitTimeMillsInSendQueue=1000` (default 200): a send that waits longer in the broker's queue is refused with
 *   SYSTEM_BUSY "[TIMEOUT_CLEAN_QUEUE]"; on a shared 2-core box 200 ms is hit by bursts of 1,000 async sends.
 * - ACL: see {@link aclEntries} (ACL 2.0 on 5.3+, ACL 1.0 on 4.x).
 * - Keys the release lacks (its traits' `absentBrokerKeys`, e.g. 4.9 has no `bindAddress` or timer wheel) are
 *   left out rather than silently ignored by the broker, so the file says what the broker runs with.
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
    timerWheelEnable: 'true',
    mappedFileSizeTimerLog: String(8 * 1024 * 1024),
    autoCreateTopicEnable: 'false',
    autoCreateSubscriptionGroup: 'true',
    enablePropertyFilter: 'true',
    traceTopicEnable: 'true',
    transactionCheckInterval: '1000',
    transactionTimeOut: '2000',
    transactionCheckMax: '3',
    transactionOpBatchInterval: '100',
    waitTimeMillsInSendQueue: '1000',
    messageDelayLevel: FAST_DELAY_LEVELS,
  };
  const release = input.release ?? ROCKETMQ_RELEASES['5.3.3']!;
  if (input.acl) Object.assign(entries, aclEntries(release, input.acl));
  if (input.member) Object.assign(entries, replicaEntries(input.member, input.storeRoot));
  for (const key of release.absentBrokerKeys) delete entries[key];
  return renderProperties({ ...entries, ...input.overrides });
}

/**
 * broker.conf keys that turn ACL on with `acl` as the all-powerful user. ACL 2.0 (5.3+): authentication and
 * authorization with the Local (RocksDB) providers, the credentials created as a SUPER user, also used by the
 * broker's own inner clients. ACL 1.0 (4.x): `aclEnable`; the account itself is in plain_acl.yml
 * ({@link renderPlainAclConfig}), which the broker reads from `<rocketmq.home.dir>/conf/`.
 */
export function aclEntries(release: RocketMqReleaseTraits, acl: AclCredentials): Record<string, string> {
  if (release.acl === 'acl-1.0') return { aclEnable: 'true' };
  return {
    authenticationEnabled: 'true',
    authenticationMetadataProvider:
      'org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider',
    authorizationEnabled: 'true',
    authorizationMetadataProvider: 'org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider',
    initAuthenticationUser: JSON.stringify({ username: acl.accessKey, password: acl.secretKey }),
    innerClientAuthenticationCredentials: JSON.stringify({ accessKey: acl.accessKey, secretKey: acl.secretKey }),
  };
}

/** Where ACL 1.0 brokers read their accounts, relative to rocketmq.home.dir (PlainPermissionManager's default). */
export const PLAIN_ACL_FILE = 'conf/plain_acl.yml';

/**
 * plain_acl.yml for ACL 1.0: one admin account (admin accounts pass every resource check) and no white-listed
 * addresses, so every request must be signed: a white-listed 127.0.0.1 would let unsigned requests through.
 * Values are written as JSON strings, which YAML reads as the same strings whatever characters they hold.
 */
export function renderPlainAclConfig(acl: AclCredentials): string {
  return [
    'globalWhiteRemoteAddresses: []',
    'accounts:',
    `  - accessKey: ${JSON.stringify(acl.accessKey)}`,
    `    secretKey: ${JSON.stringify(acl.secretKey)}`,
    '    admin: true',
    '',
  ].join('\n');
}

/**
 * The name server's config file: port, loopback bind and ROCKETMQ_HOME (see {@link BrokerConfigInput.rocketmqHome});
 * with `controller`, a one-peer DLedger controller embedded in it (enableControllerInNamesrv), listening on its
 * own port, as apache/rocketmq's distribution/conf/controller/quick-start/namesrv.conf does.
 */
export function renderNamesrvConfig(input: {
  listenPort: number;
  rocketmqHome: string;
  controller?: { port: number; storePath: string };
  /** Default 5.3.3's traits; a release without `bindAddress` (4.x) binds every interface. */
  release?: RocketMqReleaseTraits;
}): string {
  const entries: Record<string, string> = {
    listenPort: String(input.listenPort),
    ...((input.release ?? ROCKETMQ_RELEASES['5.3.3']!).bindAddress ? { bindAddress: '127.0.0.1' } : {}),
    rocketmqHome: input.rocketmqHome,
  };
  if (input.controller) {
    Object.assign(entries, {
      enableControllerInNamesrv: 'true',
      controllerDLegerGroup: 'mqkit',
      controllerDLegerPeers: `n0-127.0.0.1:${input.controller.port}`,
      controllerDLegerSelfId: 'n0',
      controllerStorePath: input.controller.storePath,
    });
  }
  return renderProperties(entries);
}
