import type { ConsumerRegistration } from '@mqkit/core';
import { getOrCreate } from '@mqkit/core/internal';

interface Member {
  registration: ConsumerRegistration;
  lastSeen: number;
  signature: string;
}

/**
 * RocketMQ's ConsumerManager: the members of each consumer group by client id, refreshed by heartbeats, removed by
 * unregister, by a closed connection, or after channelExpiryMs without a heartbeat. Every change calls `changed`
 * (the broker then sends NOTIFY_CONSUMER_IDS_CHANGED to the group).
 */
export class GroupRegistry {
  private readonly groups = new Map<string, Map<string, Member>>();

  constructor(private readonly changed: (group: string) => void) {}

  heartbeat(clientId: string, registration: ConsumerRegistration, now = Date.now()): void {
    const members = getOrCreate(this.groups, registration.group, () => new Map());
    const signature = subscriptionsSignature(registration);
    const existing = members.get(clientId);
    members.set(clientId, { registration, lastSeen: now, signature });
    // RocketMQ notifies on a new channel and on a subscription change.
    if (!existing || existing.signature !== signature) this.changed(registration.group);
  }

  unregister(clientId: string, group: string): void {
    if (this.groups.get(group)?.delete(clientId)) this.changed(group);
  }

  /** Removes a client from every group (its connection closed). */
  disconnect(clientId: string): void {
    for (const [group, members] of this.groups) if (members.delete(clientId)) this.changed(group);
  }

  /** Drops members that missed heartbeats for longer than expiryMs; returns the client ids removed. */
  expire(expiryMs: number, now = Date.now()): string[] {
    const removed: string[] = [];
    for (const [group, members] of this.groups) {
      let changed = false;
      for (const [clientId, member] of members) {
        if (now - member.lastSeen > expiryMs) {
          members.delete(clientId);
          removed.push(clientId);
          changed = true;
        }
      }
      if (changed) this.changed(group);
    }
    return removed;
  }

  consumerIds(group: string): string[] {
    return [...(this.groups.get(group)?.keys() ?? [])];
  }

  registration(group: string, clientId: string): ConsumerRegistration | undefined {
    return this.groups.get(group)?.get(clientId)?.registration;
  }

  /** The group's members with their last registration, most recently heard from first. */
  members(
    group: string,
  ): Array<{ readonly clientId: string; readonly registration: ConsumerRegistration; readonly lastSeen: number }> {
    return [...(this.groups.get(group) ?? [])]
      .map(([clientId, m]) => ({ clientId, registration: m.registration, lastSeen: m.lastSeen }))
      .sort((a, b) => b.lastSeen - a.lastSeen);
  }

  groupsOf(clientId: string): string[] {
    return [...this.groups].filter(([, m]) => m.has(clientId)).map(([g]) => g);
  }
}

function subscriptionsSignature(r: ConsumerRegistration): string {
  return `${r.messageModel}|${r.subscriptions
    .map((s) => `${s.topic}:${s.expression}`)
    .sort()
    .join(',')}`;
}
