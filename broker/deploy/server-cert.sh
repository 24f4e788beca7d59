# shellcheck shell=bash
# Issues the broker's TLS server certificate from the CA on the data volume. Sourced by
# security.sh (at boot) and renew-certificate.sh (the daily timer), which set tls_dir, ca_dir,
# openssl_conf (written by security.sh: the names and extensions) and cert_days.
# shellcheck disable=SC2154 # tls_dir, ca_dir, openssl_conf, cert_days are set by the sourcing script

# issue_server_certificate CN: a new key and certificate, each moved into place whole (the broker
# re-reads both files and takes a new pair only once they match and have settled).
issue_server_certificate() {
  (umask 077 && openssl ecparam -name prime256v1 -genkey -noout -out "${tls_dir}/server.key.new")
  openssl req -new -sha256 -key "${tls_dir}/server.key.new" -config "$openssl_conf" \
    -subj "/CN=$1" -out "${ca_dir}/server.csr"
  openssl x509 -req -sha256 -days "$cert_days" -in "${ca_dir}/server.csr" -CA "${tls_dir}/ca.crt" \
    -CAkey "${ca_dir}/ca.key" -set_serial "0x$(openssl rand -hex 16)" -extfile "$openssl_conf" \
    -extensions server_ext -out "${tls_dir}/server.crt.new"
  rm -f "${ca_dir}/server.csr"
  mv "${tls_dir}/server.key.new" "${tls_dir}/server.key"
  mv "${tls_dir}/server.crt.new" "${tls_dir}/server.crt"
}

# True when the server certificate is missing or expires within 30 days.
server_certificate_expiring() {
  ! openssl x509 -checkend 2592000 -noout -in "${tls_dir}/server.crt" >/dev/null 2>&1
}
