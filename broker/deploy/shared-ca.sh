# shellcheck shell=bash
# The CA several brokers share (storage=postgres), kept in a Secrets Manager secret as the CA key
# and certificate (PEM). Broker 1 creates it on its first boot (security.sh shares the CA it makes
# when this sets shared_ca=pending); every other broker waits for it and installs it in place of
# its own, so a certificate issued on any broker chains to the one ca.pem clients have. Sourced by
# security.sh; shares install.sh's variables and functions (log, die, region, ca_dir, tls_dir).
# shellcheck disable=SC2154 # region, ca_dir, tls_dir, poll_s are set by install.sh
# shellcheck disable=SC2034 # shared_ca is read by security.sh

ca_wait_s=${MINNOW_CA_WAIT_S:-1800}
deadline=$((SECONDS + ca_wait_s))
while :; do
  shared=$(aws --region "$region" secretsmanager get-secret-value --secret-id "$MINNOW_CA_SECRET_ID" \
    --query SecretString --output text) || die "cannot read the shared CA secret ${MINNOW_CA_SECRET_ID}"
  case "$shared" in
    pending*) ;;
    *) break ;;
  esac
  if [ "${MINNOW_NODE_ID:-}" = 1 ]; then
    shared_ca=pending
    break
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    die "the shared CA (secret ${MINNOW_CA_SECRET_ID}) is still pending after ${ca_wait_s}s: broker 1 creates it on its first boot; is it running?"
  fi
  log "waiting for broker 1 to share its CA (secret ${MINNOW_CA_SECRET_ID})"
  sleep "$poll_s"
done

if [ "$shared_ca" != pending ]; then
  mkdir -p "$ca_dir"
  chmod 0700 "$ca_dir"
  (umask 077 && printf '%s\n' "$shared" | sed -n '/-----BEGIN .*PRIVATE KEY-----/,/-----END .*PRIVATE KEY-----/p' >"${ca_dir}/ca.key.new")
  printf '%s\n' "$shared" | sed -n '/-----BEGIN CERTIFICATE-----/,/-----END CERTIFICATE-----/p' >"${tls_dir}/ca.crt.new"
  unset shared
  if ! openssl pkey -noout -in "${ca_dir}/ca.key.new" 2>/dev/null ||
    ! openssl x509 -noout -in "${tls_dir}/ca.crt.new" 2>/dev/null; then
    rm -f "${ca_dir}/ca.key.new" "${tls_dir}/ca.crt.new"
    die "the shared CA secret ${MINNOW_CA_SECRET_ID} holds no PEM key and certificate"
  fi
  if cmp -s "${ca_dir}/ca.key.new" "${ca_dir}/ca.key" && cmp -s "${tls_dir}/ca.crt.new" "${tls_dir}/ca.crt"; then
    rm -f "${ca_dir}/ca.key.new" "${tls_dir}/ca.crt.new"
  else
    log "installing the shared CA from secret ${MINNOW_CA_SECRET_ID}"
    mv "${ca_dir}/ca.key.new" "${ca_dir}/ca.key"
    mv "${tls_dir}/ca.crt.new" "${tls_dir}/ca.crt"
    rm -f "${tls_dir}/server.crt" # signed by a CA that is gone
  fi
fi
