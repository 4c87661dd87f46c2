/**
 * Variables of this run that must not reach an app's commands: npm's per-script variables (npm test runs this
 * file; `npm_config_local_prefix` and the `npm_package_*` set would point the app's npm at the workspace), and
 * vitest's worker variables (the contract app runs its own vitest), and the quickstart's ROCKETMQ_NAMESRV
 * (the apps run on the embedded broker even where a developer points that at a cluster). The user's npm
 * configuration (cache, registry, proxy, CA) stays.
 */
const DROPPED = [
  /^npm_package_/i,
  /^npm_lifecycle_/i,
  /^npm_config_(local_prefix|workspaces?|include_workspace_root)$/i,
  /^npm_(command|execpath|node_execpath)$/i,
  /^INIT_CWD$/,
  /^VITEST/,
  /^TEST$/,
  /^NODE_ENV$/,
  /^NODE_OPTIONS$/,
  /^NX_/,
  /^ROCKETMQ_NAMESRV$/,
];

/** The environment for an app's npm, tsc, node and vitest commands. */
export function appEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!DROPPED.some((re) => re.test(key))) env[key] = value;
  // A throwaway app's install should not nag about funding or audit results.
  env.npm_config_fund = 'false';
  env.npm_config_audit = 'false';
  env.npm_config_update_notifier = 'false';
  return env;
}
