/**
 * @mqkit/transport-rocketmq: RocketMQ's remoting protocol in pure TypeScript (no native addon, no Java at runtime).
 * `rocketmqTransport({ nameServer })` gives an app every transport role on a real cluster. Codecs and connections
 * for other mqkit packages are in `@mqkit/transport-rocketmq/internal`.
 */
export { rocketmqTransport } from './transport/rocketmq.transport';
export type { RocketMqTransportOptions } from './transport/rocketmq-transport.options';
export type { RocketMqTransportErrorEvent } from './transport/rocketmq-transport.events';
export { BrokerNotFoundError } from './errors/broker-not-found.error';
export { MessageDecodeError } from './errors/message-decode.error';
export { UnsafeLongError } from './errors/unsafe-long.error';
export { RemotingConnectionError } from './errors/remoting-connection.error';
export { BrokerReleaseError } from './errors/broker-release.error';
export type { AclCredentials } from './acl/acl-signer';
export type { TlsOption } from './remoting/open-socket';
export type { ReconnectOptions } from './remoting/reconnect-backoff';
export type { RemotingEvent, RemotingEventType } from './remoting/remoting-events';
