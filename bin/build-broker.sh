#!/bin/sh
# cdk.json's "build" step: compile the broker to broker/dist before every synth/deploy, so the
# asset carries JavaScript (the instance installs production dependencies only, no tsc/tsx).
# Until the broker has a CLI there is nothing to build; synth then warns instead of failing.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f broker/src/cli/main.ts ]; then
  echo "build-broker: broker/src/cli/main.ts does not exist yet; nothing to build" >&2
  exit 0
fi
exec npm run --silent --workspace broker build
