import { readClusterInfo } from './cluster-readiness';
import type { RocketMqCluster } from './rocketmq-cluster';
import { RocketMqHarnessError } from './rocketmq-harness.error';
import { sendProbeRequest } from './remoting-probe';

/** ACL 2.0 admin requests of 5.3.3 (RequestCode.AUTH_*), handled by every broker's AdminBrokerProcessor. */
const AUTH_CREATE_USER = 3001;
const AUTH_CREATE_ACL = 3006;

/** One ACL entry: a resource (`Topic:orders`, `Group:billing`, `Topic:*`) and what the user may do on it. */
export interface AclGrant {
  readonly resource: string;
  readonly actions: ReadonlyArray<'Pub' | 'Sub' | 'Get' | 'Update' | 'Create' | 'Delete' | 'List' | 'All'>;
  readonly decision?: 'Allow' | 'Deny';
}

/**
 * Creates a NORMAL ACL 2.0 user on every broker of an ACL cluster, signed with the cluster's SUPER credentials,
 * and gives it `grants` (a Normal user without a matching entry is denied everything). For tests of what a user
 * without some permission sees.
 */
export async function createAclUser(
  cluster: RocketMqCluster,
  user: { username: string; password: string; grants: readonly AclGrant[] },
): Promise<void> {
  const credentials = cluster.acl;
  if (!credentials) throw new RocketMqHarnessError('start', 'the cluster has no ACL: start it with { acl }');
  const options = cluster.probeOptions;
  const brokers = (await readClusterInfo(cluster.namesrvAddr, options)).flatMap((b) => Object.values(b.addrs));
  const body = {
    subject: `User:${user.username}`,
    policies: [
      {
        policyType: 'Custom',
        entries: user.grants.map((g) => ({
          resource: g.resource,
          actions: [...g.actions],
          decision: g.decision ?? 'Allow',
        })),
      },
    ],
  };
  for (const address of brokers) {
    const created = await sendProbeRequest(
      address,
      {
        code: AUTH_CREATE_USER,
        extFields: { username: user.username },
        body: Buffer.from(JSON.stringify({ username: user.username, password: user.password, userType: 'Normal' })),
      },
      options,
    );
    if (created.code !== 0)
      throw new RocketMqHarnessError(
        'start',
        `creating user ${user.username} on ${address} answered ${created.code}: ${created.remark ?? ''}`,
      );
    if (user.grants.length === 0) continue;
    const acl = await sendProbeRequest(
      address,
      { code: AUTH_CREATE_ACL, extFields: { subject: body.subject }, body: Buffer.from(JSON.stringify(body)) },
      options,
    );
    if (acl.code !== 0)
      throw new RocketMqHarnessError(
        'start',
        `granting ${user.username} on ${address} answered ${acl.code}: ${acl.remark ?? ''}`,
      );
  }
}
