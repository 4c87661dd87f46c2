import type { AclCredentials } from './acl-signature';
import type { TlsFiles } from './jvm-arguments';

/** Inputs for one proxy's rmq-proxy.json. */
export interface ProxyConfigInput {
  /** The brokers' cluster name: the proxy routes and creates its system topics in this cluster. */
  readonly clusterName: string;
  readonly namesrvAddr: string;
  readonly remotingPort: number;
  readonly grpcPort: number;
  /** The cluster's ACL user: the proxy authenticates its clients and signs its own requests with it. */
  readonly acl?: AclCredentials;
  /** The cluster's certificate and key when it enforces TLS: the proxy serves them too. */
  readonly tls?: TlsFiles;
  /** Keys to add or override (ProxyConfig and AuthConfig field names). */
  readonly overrides?: Readonly<Record<string, unknown>>;
}

/**
 * rmq-proxy.json for a cluster-mode proxy. Keys are the fields of 5.3.3's ProxyConfig and AuthConfig: the
 * proxy parses the one file into both (Configuration.init).
 * - `localServeAddr` and `remotingAccessAddr` are 127.0.0.1: the proxy otherwise takes the machine's first
 *   non-loopback address, and GET_ROUTEINFO_BY_TOPIC answers every queue at `remotingAccessAddr:remotingListenPort`.
 *   The listeners themselves bind every interface (ProxyConfig has no bind address).
 * - `enablePrintJstack` off: it dumps every thread to the log each minute.
 * - `transactionHeartbeatPeriodSecond` 1 (default 20): the proxy registers a transactional producer group with
 *   the brokers only on this period, and a broker checks back only groups registered with it; the harness brokers
 *   check a half message 3 times within about 5 s (broker-config.ts), so with 20 s every check would be lost.
 * - ACL (the cluster runs ACL 2.0): the proxy authenticates and authorizes clients itself, reading users and
 *   policies from the brokers (Proxy*MetadataProvider), and its inner clients sign with the cluster's SUPER user;
 *   `enableAclRpcHookForClusterMode` is what makes it use `innerClientAuthenticationCredentials` at all
 *   (DefaultMessagingProcessor.createForClusterMode).
 * - TLS: the proxy sets the `tls.server.*` properties from its own `tlsTestModeEnable` (default true: a fresh
 *   self-signed certificate), `tlsCertPath` and `tlsKeyPath` (RemotingProtocolServer), overriding the JVM flags;
 *   so the cluster's files go here. `tls.server.mode` (enforcing or disabled) still comes from the JVM flags.
 */
export function renderProxyConfig(input: ProxyConfigInput): string {
  const config: Record<string, unknown> = {
    rocketMQClusterName: input.clusterName,
    proxyClusterName: input.clusterName,
    proxyName: `mqkit-proxy-${input.remotingPort}`,
    namesrvAddr: input.namesrvAddr,
    proxyMode: 'cluster',
    remotingListenPort: input.remotingPort,
    grpcServerPort: input.grpcPort,
    localServeAddr: '127.0.0.1',
    remotingAccessAddr: '127.0.0.1',
    enablePrintJstack: false,
    transactionHeartbeatPeriodSecond: 1,
  };
  if (input.tls) {
    Object.assign(config, {
      tlsTestModeEnable: false,
      tlsCertPath: input.tls.certPath,
      tlsKeyPath: input.tls.keyPath,
    });
  }
  if (input.acl) {
    Object.assign(config, {
      enableAclRpcHookForClusterMode: true,
      innerClientAuthenticationCredentials: JSON.stringify({
        accessKey: input.acl.accessKey,
        secretKey: input.acl.secretKey,
      }),
      authenticationEnabled: true,
      authenticationMetadataProvider: 'org.apache.rocketmq.proxy.auth.ProxyAuthenticationMetadataProvider',
      authorizationEnabled: true,
      authorizationMetadataProvider: 'org.apache.rocketmq.proxy.auth.ProxyAuthorizationMetadataProvider',
    });
  }
  return `${JSON.stringify({ ...config, ...input.overrides }, null, 1)}\n`;
}
