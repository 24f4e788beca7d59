#!/bin/bash
# Installs and starts minnow on Amazon Linux 2023. The CDK user data writes this file to
# /usr/local/sbin/minnow-install with its settings in /etc/minnow/install.env and runs it on every
# boot (cloud-init `scripts-user: always`), so a stop/start picks up a new broker release or a new
# instance type. Every step checks before it acts: running it twice changes nothing.
#
# Settings (environment or the file named by $1):
#   MINNOW_ASSET_URL        s3://bucket/<hash>.zip, the built broker (required)
#   MINNOW_ADVERTISED_HOST  the Elastic IP clients are told to connect to (required)
#   MINNOW_DATA_VOLUME_ID   vol-..., the EBS volume that holds /data (required)
#   MINNOW_SECURITY=on      on: SASL_SSL on MINNOW_PORT (default 9093), plaintext only on loopback
#                           (MINNOW_LOOPBACK_PORT, default 9092); off: plaintext on MINNOW_PORT
#                           (default 9092) for everyone who reaches it, no authentication (unsafe)
#   MINNOW_CA_PARAMETER     (on) the SSM parameter the CA certificate is published to
#   MINNOW_ADMIN_SECRET_ID  (on) the Secrets Manager secret holding the admin password
#   MINNOW_LISTEN_HOST=0.0.0.0  MINNOW_LOG_LEVEL=info  MINNOW_CERT_DAYS=825  MINNOW_CA_DAYS=3650
#   MINNOW_NODE=/usr/bin/node-22  MINNOW_NPM=npm-22   (AL2023 namespaces Node.js by major version)
#   MINNOW_ATTACH_TIMEOUT_S=1800  MINNOW_EIP_TIMEOUT_S=300  MINNOW_POLL_S=5  MINNOW_HEALTH_TIMEOUT_S=120
#   MINNOW_SIGNAL_URL       the release's CloudFormation wait condition handle (deploy/release.sh)
#   ROOT=""   prefix for every path this script writes and for the paths it writes into files,
#             so tests can run it against a temp dir with stub commands first on PATH.
# shellcheck disable=SC2034 # many variables are read by the deploy/*.sh scripts it sources
set -euo pipefail

ROOT=${ROOT:-}
conf=${1:-${ROOT}/etc/minnow/install.env}
if [ -r "$conf" ]; then
  # shellcheck source=/dev/null
  . "$conf"
fi
: "${MINNOW_ASSET_URL:?MINNOW_ASSET_URL is not set (expected s3://bucket/key.zip)}"
: "${MINNOW_ADVERTISED_HOST:?MINNOW_ADVERTISED_HOST is not set (expected the Elastic IP)}"
: "${MINNOW_DATA_VOLUME_ID:?MINNOW_DATA_VOLUME_ID is not set (expected vol-...)}"
security=${MINNOW_SECURITY:-on}
case "$security" in
  on)
    : "${MINNOW_CA_PARAMETER:?MINNOW_CA_PARAMETER is not set (expected the SSM parameter for the CA certificate)}"
    : "${MINNOW_ADMIN_SECRET_ID:?MINNOW_ADMIN_SECRET_ID is not set (expected the admin password secret ARN)}"
    port=${MINNOW_PORT:-9093}
    ;;
  off) port=${MINNOW_PORT:-9092} ;;
  *)
    echo "minnow-install: MINNOW_SECURITY=${security} must be on or off" >&2
    exit 1
    ;;
esac
loopback_port=${MINNOW_LOOPBACK_PORT:-9092}
metrics_port=${MINNOW_METRICS_PORT:-9464}
listen_host=${MINNOW_LISTEN_HOST:-0.0.0.0}
log_level=${MINNOW_LOG_LEVEL:-info}
node_bin=${MINNOW_NODE:-/usr/bin/node-22}
npm_bin=${MINNOW_NPM:-npm-22}
attach_timeout_s=${MINNOW_ATTACH_TIMEOUT_S:-1800}
poll_s=${MINNOW_POLL_S:-5}
# cloud-init runs user data without HOME; npm needs one for its cache.
export HOME=${HOME:-/root}

data_dir="${ROOT}/data"
app_dir="${ROOT}/opt/minnow"
etc_dir="${ROOT}/etc/minnow"
env_file="${etc_dir}/minnow.env"
unit_file="${ROOT}/etc/systemd/system/minnow.service"
tls_dir="${data_dir}/tls"
fstab="${ROOT}/etc/fstab"
previous_file="${etc_dir}/previous-instance" # the instance this boot took the data volume from
changed=0

log() { echo "minnow-install: $*" >&2; }
# The boot cannot go on: say why (the message is what the user sees in the stack events).
die() {
  log "error: $*"
  fail "$*"
}
# Signals FAILURE with reason $1 and exits 1. A boot that took the data volume from the instance it
# replaces gives it back first, and says so (give_back, deploy/take-volume.sh).
fail() {
  local reason=$1
  ! declare -F give_back >/dev/null || reason+=$(give_back)
  signal FAILURE "$reason"
  exit 1
}
# Tells CloudFormation how the boot went, once: the release's wait condition handle is a presigned
# URL (no credentials) and a FAILURE's Reason shows in the stack events. set -e failures signal too.
signal() {
  [ -n "${MINNOW_SIGNAL_URL:-}" ] && [ -z "${signalled:-}${MINNOW_ROLLBACK:-}" ] || return 0
  signalled=1
  local reason
  reason=$(printf '%s' "$2" | tr -d '[:cntrl:]"\134' | cut -c1-900)
  curl -sS --retry 5 -X PUT -H 'Content-Type:' --data-binary "{\"Status\":\"$1\",\"Reason\":\"${reason}\",\"UniqueId\":\"${instance_id:-boot}\",\"Data\":\"${release_id:-}\"}" \
    "$MINNOW_SIGNAL_URL" >/dev/null || log "warning: could not send $1 to the wait condition"
}
failed=unknown
trap 'failed="line ${LINENO}: ${BASH_COMMAND}"' ERR
trap '[ $? = 0 ] || fail "minnow-install failed at ${failed}; see /var/log/cloud-init-output.log"' EXIT

# --- packages ---------------------------------------------------------------------------------
if ! rpm -q --quiet nodejs22 nodejs22-npm unzip openssl; then
  log "installing Node.js 22, unzip and openssl"
  dnf install -y nodejs22 nodejs22-npm unzip openssl
fi

# --- identity ---------------------------------------------------------------------------------
# IMDSv2 only (the instance requires tokens).
imds_token=$(curl -sSf --retry 10 --retry-connrefused -X PUT \
  -H 'X-aws-ec2-metadata-token-ttl-seconds: 21600' http://169.254.169.254/latest/api/token)
imds() {
  curl -sSf --retry 10 -H "X-aws-ec2-metadata-token: ${imds_token}" "http://169.254.169.254/latest/meta-data/$1"
}
instance_id=$(imds instance-id)
region=$(imds placement/region)

# --- broker release ---------------------------------------------------------------------------
# Installed on the root volume before the data volume is taken: a replacement instance prepares all
# this while the instance it replaces still serves (deploy/take-volume.sh). The asset's file name is
# its content hash, so it names the release.
release_id=$(basename "$MINNOW_ASSET_URL" .zip)
release_dir="${app_dir}/releases/${release_id}"
mkdir -p "${app_dir}/releases"
if [ ! -e "${release_dir}/.installed" ]; then
  log "installing broker release ${release_id}"
  rm -rf "${app_dir}"/releases/.work.*
  work=$(mktemp -d "${app_dir}/releases/.work.XXXXXX")
  aws --region "$region" s3 cp --only-show-errors "$MINNOW_ASSET_URL" "${work}/broker.zip"
  unzip -q "${work}/broker.zip" -d "${work}/app"
  # Production dependencies from the pinned lock. better-sqlite3 and zstd-napi fetch prebuilt
  # binaries; when none matches, they build from source, which needs a compiler.
  if ! (cd "${work}/app" && "$npm_bin" ci --omit=dev --no-audit --no-fund); then
    log "npm ci failed; installing a compiler for native modules and retrying"
    dnf install -y gcc-c++ make python3
    (cd "${work}/app" && "$npm_bin" ci --omit=dev --no-audit --no-fund)
  fi
  if [ ! -e "${work}/app/dist/cli/main.js" ]; then
    log "warning: release ${release_id} has no dist/cli/main.js (broker not built before cdk deploy?)"
  fi
  touch "${work}/app/.installed"
  rm -rf "$release_dir"
  mv "${work}/app" "$release_dir"
  rm -rf "$work"
  changed=1
fi

# --- data volume ------------------------------------------------------------------------------
# Attached by the boot itself, taken over from the instance this one replaces: deploy/take-volume.sh.
# Sets device; its give_back undoes the takeover if the boot fails after it.
device=""
# shellcheck source=/dev/null # checked on its own
. "${release_dir}/deploy/take-volume.sh"

# Format only a blank volume: a volume restored from a snapshot keeps its filesystem and data.
# mkfs.xfs without -f also refuses to overwrite a filesystem it recognises.
fs_type=$(blkid -o value -s TYPE "$device" || true)
if [ -z "$fs_type" ]; then
  log "formatting blank volume ${device} as xfs"
  mkfs.xfs -L minnow-data "$device"
  fs_type=xfs
fi
fs_uuid=$(blkid -o value -s UUID "$device")

mkdir -p "$data_dir" "$(dirname "$fstab")"
fstab_line="UUID=${fs_uuid} ${data_dir} ${fs_type} defaults,nofail,noatime 0 2"
if ! grep -qxF "$fstab_line" "$fstab" 2>/dev/null; then
  log "adding ${data_dir} to ${fstab}"
  # nofail: a missing volume must not stop the instance from booting (SSM still works).
  { awk -v dir="$data_dir" '$2 != dir' "$fstab" 2>/dev/null || true; echo "$fstab_line"; } >"${fstab}.minnow"
  mv "${fstab}.minnow" "$fstab"
  systemctl daemon-reload
fi
if ! mountpoint -q "$data_dir"; then
  mount --fstab "$fstab" "$data_dir"
fi
# A bigger dataVolumeGiB grows the EBS volume in place; grow the filesystem to match.
if [ "$fs_type" = xfs ]; then
  xfs_growfs -d "$data_dir" >/dev/null
fi

# The minnow user (fixed ids) and what it owns under /data: in the release's deploy/owner.sh.
# shellcheck source=/dev/null # checked on its own
. "${release_dir}/deploy/owner.sh"

# --- TLS certificate and admin password (MINNOW_SECURITY=on) -----------------------------------
# In the release's deploy/security.sh, which may replace advertised_name and set changed.
advertised_name=$MINNOW_ADVERTISED_HOST
# shellcheck source=/dev/null # checked on its own
. "${release_dir}/deploy/security.sh"

# --- configuration: /etc/minnow/minnow.env and the unit, in the release's deploy/configure.sh ---
# shellcheck source=/dev/null # checked on its own
. "${release_dir}/deploy/configure.sh"

# Start the release, switching `current` only once it answers (deploy/release.sh); signal.
# shellcheck source=/dev/null # checked on its own
. "${release_dir}/deploy/release.sh"
rm -f "$previous_file" # the broker answers: the takeover stands, nothing to give back
# CloudFormation moves the Elastic IP here once the signal above has arrived, and that swap cuts
# the connections of the launch-time address: the agent's download below waits for it (bounded).
deadline=$((SECONDS + ${MINNOW_EIP_TIMEOUT_S:-300}))
until [ "$(imds public-ipv4 || true)" = "$MINNOW_ADVERTISED_HOST" ]; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    log "warning: the public address is not ${MINNOW_ADVERTISED_HOST} yet; installing the agent anyway"
    break
  fi
  sleep "$poll_s"
done
# CloudWatch agent and the CPU credit mode, once the broker answers (warnings only).
# shellcheck source=/dev/null # checked on its own
. "${release_dir}/deploy/observe.sh"
