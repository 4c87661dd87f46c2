import { RocketMqHarnessError } from './rocketmq-harness.error';

/** Which access control a release's brokers have: 4.x plain_acl.yml (ACL 1.0) or 5.3+'s users and policies. */
export type RocketMqAclModel = 'acl-1.0' | 'acl-2.0';

/**
 * What the harness must do differently for one RocketMQ release. Every per-release difference the harness knows
 * lives in {@link ROCKETMQ_RELEASES}; nothing else in the harness compares version strings.
 */
export interface RocketMqReleaseTraits {
  readonly release: string;
  /**
   * Logback files the name server and broker mains read from `<rocketmqHome>/conf/` (4.x's NamesrvStartup and
   * BrokerStartup call JoranConfigurator on exactly these paths and fail to start without them). 5.x reads its
   * config from the classpath or `-Drmq.logback.configurationFile` and needs none.
   */
  readonly logbackFiles: readonly string[];
  readonly acl: RocketMqAclModel;
  /** The timer wheel (RocketMQ 5's arbitrary-delay timer messages); 4.x has only the 18 delay levels. */
  readonly timerWheel: boolean;
  /** `bindAddress` exists (NettyServerConfig); 4.x binds every interface and has no such key. */
  readonly bindAddress: boolean;
  /** The embedded DLedger controller (controller mode) exists. */
  readonly controller: boolean;
  /** rocketmq-proxy (org.apache.rocketmq.proxy.ProxyStartup, cluster and local mode) exists: it came with 5.0. */
  readonly proxy: boolean;
  /** broker.conf keys the harness sets by default that this release does not have (MixAll ignores them silently). */
  readonly absentBrokerKeys: readonly string[];
  /** JVM flags this release needs on Java 17, for the name server and the broker alike. */
  readonly jvmArgs: readonly string[];
}

const RELEASE_4_9: Omit<RocketMqReleaseTraits, 'release'> = {
  logbackFiles: ['logback_namesrv.xml', 'logback_broker.xml'],
  acl: 'acl-1.0',
  timerWheel: false,
  bindAddress: false,
  controller: false,
  proxy: false,
  // Checked against the setters of 4.9.7's BrokerConfig, MessageStoreConfig and Netty configs (javap):
  // transactionOpBatchInterval (5.x batches transaction ends; 4.9 writes each at once), the timer wheel's keys,
  // ACL 2.0's keys, the replica keys of 5's HA (inSyncReplicas/totalReplicas).
  absentBrokerKeys: [
    'bindAddress',
    'timerWheelEnable',
    'mappedFileSizeTimerLog',
    'transactionOpBatchInterval',
    'inSyncReplicas',
    'totalReplicas',
  ],
  // 4.9's MappedFile.clean reflects into DirectByteBuffer.attachment/cleaner and jdk.internal.ref.Cleaner.clean to
  // unmap a file. Without the first, each unmap (every mapped file at shutdown, expired commit-log files) throws
  // InaccessibleObjectException "does not opens java.nio"; with it alone, "does not exports jdk.internal.ref".
  jvmArgs: ['--add-opens', 'java.base/java.nio=ALL-UNNAMED', '--add-opens', 'java.base/jdk.internal.ref=ALL-UNNAMED'],
};

const RELEASE_5: Omit<RocketMqReleaseTraits, 'release'> = {
  logbackFiles: [],
  acl: 'acl-2.0',
  timerWheel: true,
  bindAddress: true,
  controller: true,
  proxy: true,
  // 5.3.3 → 5.4.0 → 5.5.0 only add keys (javap of the same classes): nothing the harness sets went away.
  absentBrokerKeys: [],
  // No --add-opens on Java 17 (HARNESS.md: "Verified on Java 17").
  jvmArgs: [],
};

/**
 * The releases the harness runs and the compatibility suite covers, each with what it needs. Adding a release
 * is one entry here (and its jars must be on Maven Central).
 */
export const ROCKETMQ_RELEASES: Readonly<Record<string, RocketMqReleaseTraits>> = {
  '4.9.7': { release: '4.9.7', ...RELEASE_4_9 },
  '5.3.3': { release: '5.3.3', ...RELEASE_5 },
  '5.4.0': { release: '5.4.0', ...RELEASE_5 },
  '5.5.0': { release: '5.5.0', ...RELEASE_5 },
};

function parseRelease(version: string): [number, number, number] {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match)
    throw new RocketMqHarnessError('start', `RocketMQ version "${version}" is not of the form major.minor.patch`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compareReleases(a: string, b: string): number {
  const [x, y] = [parseRelease(a), parseRelease(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

/**
 * The traits of `version`: its own entry, else those of the newest listed release of the same major line not
 * newer than it (so 5.3.2 runs as 5.3.3's line would, 4.9.8 as 4.9.7), else the oldest of that line. A major line
 * with no listed release (3.x, 6.x) is refused: nothing says what its files and flags are.
 */
export function rocketMqRelease(version: string): RocketMqReleaseTraits {
  const own = ROCKETMQ_RELEASES[version];
  if (own) return own;
  const [major] = parseRelease(version);
  const line = Object.keys(ROCKETMQ_RELEASES)
    .filter((release) => parseRelease(release)[0] === major)
    .sort(compareReleases);
  if (line.length === 0)
    throw new RocketMqHarnessError(
      'start',
      `the harness knows no RocketMQ ${major}.x release (it runs ${Object.keys(ROCKETMQ_RELEASES).join(', ')})`,
    );
  const base = line.filter((release) => compareReleases(release, version) <= 0).at(-1) ?? line[0]!;
  return { ...ROCKETMQ_RELEASES[base]!, release: version };
}
