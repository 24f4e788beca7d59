#!/bin/bash
# minnow-cert-renew: renews the broker's TLS server certificate when it expires within 30 days,
# from the CA on the data volume, with the names and extensions the boot wrote (ca/openssl.cnf),
# then has the broker load it: `systemctl reload minnow` sends SIGHUP (ExecReload in minnow.service),
# and the broker reads the TLS files again for new connections; open ones keep theirs. Run daily by
# minnow-cert-renew.timer (the boot renews too: deploy/security.sh). Usage: renew-certificate.sh TLS_DIR
# Settings: MINNOW_CERT_DAYS=825 (the new certificate's validity).
set -euo pipefail

tls_dir=${1:?usage: renew-certificate.sh TLS_DIR}
ca_dir="${tls_dir}/ca"
openssl_conf="${ca_dir}/openssl.cnf"
cert_days=${MINNOW_CERT_DAYS:-825}
log() { echo "minnow-cert-renew: $*" >&2; }

# shellcheck source=/dev/null # checked on its own
. "$(dirname "$0")/server-cert.sh"
if ! server_certificate_expiring; then
  log "$(openssl x509 -noout -enddate -in "${tls_dir}/server.crt"): more than 30 days left, nothing to do"
  exit 0
fi
for file in "${ca_dir}/ca.key" "${tls_dir}/ca.crt" "$openssl_conf"; do
  [ -s "$file" ] || {
    log "error: ${file} is missing; the next boot issues the certificate (sudo minnow-install)"
    exit 1
  }
done
# The same subject as the certificate it replaces (the boot's advertised name).
cn=$(openssl x509 -noout -subject -nameopt RFC2253 -in "${tls_dir}/server.crt" 2>/dev/null || true)
cn=${cn#subject=}
cn=${cn#CN=}
[ -n "$cn" ] || cn=minnow # clients check the names in subjectAltName, not this
log "renewing the server certificate for ${cn} (${cert_days} days)"
issue_server_certificate "$cn"
chown minnow:minnow "${tls_dir}/server.key"
chmod 0600 "${tls_dir}/server.key"
chmod 0644 "${tls_dir}/server.crt"
# The broker also notices the new files by itself within a minute (MINNOW_TLS_RELOAD_INTERVAL_MS);
# the reload makes it now. Not running: it reads them when it starts.
if systemctl reload minnow.service; then
  log "renewed; the broker reloaded its TLS files: $(openssl x509 -noout -enddate -in "${tls_dir}/server.crt")"
else
  log "renewed; the broker was not reloaded (not running?): it reads the new certificate when it starts"
fi
