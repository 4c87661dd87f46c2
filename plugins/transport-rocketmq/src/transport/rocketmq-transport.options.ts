import { ConfigurationError, type ConfigurationIssue, type Profile } from '@mqkit/core';
import { checkCredentials, type AclCredentials } from '../acl/acl-signer';
import { parseAddress, type TlsOption } from '../remoting/open-socket';
import type { ReconnectOptions } from '../remoting/reconnect-backoff';

/** Options of {@link rocketmqTransport}. */
export interface RocketMqTransportOptions {
  /**
   * Name server address(es): `'host:port'`, RocketMQ's `'host:port;host:port'`, or an array. With several, one is
   * used until it fails, then the next (RocketMQ's name server failover).
   */
  readonly nameServer: string | readonly string[];
  /** ACL credentials: every request is signed as RocketMQ's AclClientRPCHook signs it. */
  readonly credentials?: AclCredentials;
  /** TLS to the name servers and brokers: true for the system CAs, or Node's TLS options (ca, cert, key, ...). */
  readonly tls?: TlsOption;
  /** Timeout of ordinary requests (default: the profile's requestTimeoutMs, 3 s in RocketMQ). */
  readonly requestTimeoutMs?: number;
  /** Route refresh period (default: the profile's routeRefreshMs, 30 s in RocketMQ). */
  readonly routeRefreshMs?: number;
  /** How long `createTopic` waits for the name server to route every queue (default 30 s). */
  readonly createTopicTimeoutMs?: number;
  /** LanguageCode sent in headers (default "JAVA", which every 5.x broker knows; "NODE_JS" needs ≥ 5.3.2). */
  readonly language?: 'JAVA' | 'OTHER' | 'NODE_JS';
  /** How dropped connections are re-established (default: 100 ms doubling to 10 s, with jitter). */
  readonly reconnect?: ReconnectOptions;
}

/** The options with every default applied. */
export interface ResolvedTransportOptions {
  readonly nameServers: readonly string[];
  readonly credentials: AclCredentials | undefined;
  readonly tls: TlsOption | undefined;
  readonly requestTimeoutMs: number;
  readonly routeRefreshMs: number;
  readonly createTopicTimeoutMs: number;
  readonly language: string;
  readonly reconnect: ReconnectOptions | undefined;
}

const SOURCE = 'rocketmqTransport';

function splitNameServers(value: unknown): string[] | undefined {
  if (typeof value === 'string')
    return value
      .split(';')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return value.flatMap((v: string) => splitNameServers(v) ?? []);
  return undefined;
}

function positiveInt(issues: ConfigurationIssue[], option: string, value: unknown, max: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    issues.push({ source: SOURCE, option, value, allowed: `an integer number of ms in [1, ${max}]` });
  }
}

/**
 * Checks every option and lists every problem in one ConfigurationError (nothing connects before this passes).
 * Intervals the options leave out come from the app's profile at register time.
 */
export function checkTransportOptions(options: RocketMqTransportOptions): void {
  const issues: ConfigurationIssue[] = [];
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError({
      source: SOURCE,
      option: 'options',
      value: options,
      allowed: 'an object with at least nameServer',
    });
  }
  const servers = splitNameServers(options.nameServer);
  if (!servers || servers.length === 0) {
    issues.push({
      source: SOURCE,
      option: 'nameServer',
      value: options.nameServer,
      allowed: "'host:port', 'host:port;host:port' or an array of 'host:port'",
    });
  } else {
    for (const server of servers) {
      try {
        parseAddress(server);
      } catch {
        issues.push({
          source: SOURCE,
          option: 'nameServer',
          value: server,
          allowed: 'host:port or [ipv6]:port with a port in 1..65535',
        });
      }
    }
  }
  if (options.credentials !== undefined) {
    if (typeof options.credentials !== 'object' || options.credentials === null) {
      issues.push({
        source: SOURCE,
        option: 'credentials',
        value: options.credentials,
        allowed: '{ accessKey, secretKey }',
      });
    } else {
      try {
        checkCredentials(options.credentials, SOURCE);
      } catch (error) {
        if (error instanceof ConfigurationError) issues.push(...error.issues);
        else throw error;
      }
    }
  }
  if (
    options.tls !== undefined &&
    typeof options.tls !== 'boolean' &&
    (typeof options.tls !== 'object' || options.tls === null)
  ) {
    issues.push({ source: SOURCE, option: 'tls', value: options.tls, allowed: 'true, false or tls.ConnectionOptions' });
  }
  positiveInt(issues, 'requestTimeoutMs', options.requestTimeoutMs, 600_000);
  positiveInt(issues, 'routeRefreshMs', options.routeRefreshMs, 3_600_000);
  positiveInt(issues, 'createTopicTimeoutMs', options.createTopicTimeoutMs, 3_600_000);
  if (options.language !== undefined && !['JAVA', 'OTHER', 'NODE_JS'].includes(options.language)) {
    issues.push({
      source: SOURCE,
      option: 'language',
      value: options.language,
      allowed: 'one of JAVA, OTHER, NODE_JS',
    });
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
}

/** Applies defaults: intervals from the profile unless given. Call {@link checkTransportOptions} first. */
export function resolveTransportOptions(options: RocketMqTransportOptions, profile: Profile): ResolvedTransportOptions {
  return {
    nameServers: splitNameServers(options.nameServer) ?? [],
    credentials: options.credentials,
    tls: options.tls === false ? undefined : options.tls,
    requestTimeoutMs: options.requestTimeoutMs ?? profile.requestTimeoutMs,
    routeRefreshMs: options.routeRefreshMs ?? profile.routeRefreshMs,
    createTopicTimeoutMs: options.createTopicTimeoutMs ?? 30_000,
    language: options.language ?? 'JAVA',
    reconnect: options.reconnect,
  };
}
