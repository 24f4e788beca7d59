#!/bin/bash
# minnow-rollback: run the previous broker release again (installed by deploy/release.sh as
# /usr/local/sbin/minnow-rollback). It reruns the installer in rollback mode, which switches
# /opt/minnow/current to /opt/minnow/previous, restarts the broker and checks that it answers
# (back to where it was if not). Later boots keep the rollback until a deploy brings another
# release; to undo it, run minnow-rollback again. No CloudFormation signal: no deploy waits for it.
set -euo pipefail
if [ "$EUID" != 0 ]; then
  echo "minnow-rollback: run as root (sudo minnow-rollback)" >&2
  exit 1
fi
exec env MINNOW_ROLLBACK=1 "${ROOT:-}/usr/local/sbin/minnow-install" "$@"
