/**
 * @mqkit/transport-rocketmq: RocketMQ's remoting protocol in pure TypeScript (no native addon, no Java at runtime).
 * The transport plugin itself is still being wired; today this entry exposes the errors and option types that
 * applications see. Codecs and connections for other mqkit packages are in `@mqkit/transport-rocketmq/internal`.
 */
export { MessageDecodeError } from './errors/message-decode.error';
export { UnsafeLongError } from './errors/unsafe-long.error';
export { RemotingConnectionError } from './errors/remoting-connection.error';
export type { AclCredentials } from './acl/acl-signer';
export type { TlsOption } from './remoting/open-socket';
export type { ReconnectOptions } from './remoting/reconnect-backoff';
export type { RemotingEvent, RemotingEventType } from './remoting/remoting-events';
