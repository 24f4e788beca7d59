# shellcheck shell=bash
# The broker's settings (/etc/minnow/minnow.env) and its systemd unit. Sourced by install.sh once
# the release is in place (it lives in the release to keep the EC2 user data under its 16 KB
# limit), so it shares install.sh's variables and functions; sets changed (restart the broker).
# shellcheck disable=SC2154 # security, ports, paths, advertised_name are set by install.sh
# shellcheck disable=SC2034 # changed is read by deploy/release.sh

# --- configuration ----------------------------------------------------------------------------
storage_engine="sqlite://${data_dir}/minnow.db"
node_line=""
if [ -n "${MINNOW_DATABASE_SECRET_ID:-}" ]; then
  # Several brokers on one PostgreSQL: the URL holds the password, so the file is root-only (systemd
  # reads it as root). The node id is fixed per broker by the stack.
  # shellcheck source=/dev/null # checked on its own
  . "${release_dir}/deploy/postgres.sh"
  [ -n "${MINNOW_NODE_ID:-}" ] || die "MINNOW_NODE_ID is not set: each broker on a shared database has its own"
  node_line="
NODE_ID=${MINNOW_NODE_ID}"
fi
if [ "$security" = on ]; then
  # Public: SASL_SSL. Loopback: plaintext for tools on the box; its ANONYMOUS principal is no
  # super user, so without ACLs it gets only what needs no authorization (docs/connect-aws.md).
  env_text="LISTENER_URL=sasl+tls://${listen_host}:${port},tcp://127.0.0.1:${loopback_port}
ADVERTISED_LISTENER_URL=sasl+tls://${advertised_name}:${port},tcp://127.0.0.1:${loopback_port}
SASL_MECHANISMS=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN
TLS_CERT_FILE=${tls_dir}/server.crt
TLS_KEY_FILE=${tls_dir}/server.key
TLS_CLIENT_AUTH=none
SUPER_USERS=User:admin
ALLOW_EVERYONE_IF_NO_ACL_FOUND=false
MINNOW_ADMIN_USER=admin
STORAGE_ENGINE=${storage_engine}
LOG_LEVEL=${log_level}
MINNOW_METRICS_LISTENER=127.0.0.1:${metrics_port}${node_line}"
else
  env_text="LISTENER_URL=tcp://${listen_host}:${port}
ADVERTISED_LISTENER_URL=tcp://${MINNOW_ADVERTISED_HOST}:${port}
STORAGE_ENGINE=${storage_engine}
LOG_LEVEL=${log_level}
MINNOW_METRICS_LISTENER=127.0.0.1:${metrics_port}${node_line}"
fi
env_mode=0644
[ -z "${MINNOW_DATABASE_SECRET_ID:-}" ] || env_mode=0600
if [ "$(cat "$env_file" 2>/dev/null)" != "$env_text" ]; then
  log "writing ${env_file}"
  (umask 077 && printf '%s\n' "$env_text" >"${env_file}.new")
  chmod "$env_mode" "${env_file}.new"
  mv "${env_file}.new" "$env_file"
  changed=1
fi
chmod "$env_mode" "$env_file"

# The unit ships in the release; under a ROOT prefix its absolute paths move with it.
unit_text=$(sed -e "s#=/usr/bin/node-22 #=${node_bin} #" \
  -e "s#\([= ]\)/opt/minnow#\1${ROOT}/opt/minnow#g" \
  -e "s#\([= ]\)/etc/minnow#\1${ROOT}/etc/minnow#g" \
  -e "s#\([= ]\)/data\$#\1${ROOT}/data#g" \
  "${release_dir}/deploy/minnow.service")
if [ "$(cat "$unit_file" 2>/dev/null)" != "$unit_text" ]; then
  log "writing ${unit_file}"
  mkdir -p "$(dirname "$unit_file")"
  printf '%s\n' "$unit_text" >"$unit_file"
  systemctl daemon-reload
  changed=1
fi
