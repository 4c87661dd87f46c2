#!/usr/bin/env bash
# Every commit subject since the rule began fits `git log --oneline` on a narrow terminal: at most 72 characters.
# Older history predates the rule (its last two long subjects were written the day the rule came in). In a clone
# too shallow to hold the first commit under the rule, only HEAD is checked.
set -uo pipefail
cd "$(dirname "$0")/.."
RULE_SINCE=d0c6ef09
MAX=72
if git cat-file -e "$RULE_SINCE^{commit}" 2>/dev/null; then range="$RULE_SINCE..HEAD"; else range="-1 HEAD"; fi
long=$(git log --format='%h %s' $range | awk -v max="$MAX" 'length($0) - index($0, " ") > max')
if [ -n "$long" ]; then
  echo "commit subjects over $MAX characters (shorten them; details go in the body):" >&2
  echo "$long" >&2
  exit 1
fi
echo "commit subjects: every one since $RULE_SINCE within $MAX characters" >&2
