import type { AclCredentials } from '@mqkit/transport-rocketmq/testing';

/** The compatibility cluster's all-powerful account (plain_acl.yml's admin on 4.x, the initial user on 5.x). */
export const COMPAT_ACL: AclCredentials = { accessKey: 'mqkitCompat', secretKey: 'compat-secret-12345' };
