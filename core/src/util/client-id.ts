import { networkInterfaces } from 'node:os';

let instanceCounter = 0;

/** The first non-internal IPv4 address, as RocketMQ's NetworkUtil picks a client IP; loopback when none. */
export function localAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  }
  return '127.0.0.1';
}

/** RocketMQ's default instanceName in CLUSTERING, `<pid>#<n>`, with n unique per app in this process. */
export function defaultInstanceName(): string {
  instanceCounter += 1;
  return `${process.pid}#${instanceCounter}`;
}

/** `<ip>@<instanceName>`: what members sort to allocate queues, so it must be unique in a group. */
export function buildClientId(options: { clientIp?: string; instanceName?: string }): string {
  return `${options.clientIp ?? localAddress()}@${options.instanceName ?? defaultInstanceName()}`;
}
