#!/usr/bin/env bash
# Runs the compatibility suite (test/src/compat/) on the given targets, or on every one, each against a cluster of
# its own that the suite's global setup starts and stops, then writes test/compat-results/ and the README table
# from the reports. Usage: npm run compat [-- 4.9.7 proxy-5.3.3 ...]
set -uo pipefail
cd "$(dirname "$0")/../.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(node test/tools/compat-table.mjs targets)
npx nx run-many -t build 1>&2 || exit 1
status=0
for target in "${targets[@]}"; do
  echo "[compat] $target" >&2
  (cd test && MQKIT_COMPAT_TARGET="$target" npx vitest run --config vitest.compat.mts) || status=1
done
node test/tools/compat-table.mjs update reports/compat || status=1
exit $status
