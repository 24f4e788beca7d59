# shellcheck shell=bash
# minnow's security setup on the instance (MINNOW_SECURITY=on): a CA and a server certificate on
# the data volume, the CA published to SSM for `npm run ops -- ca`, the admin password as a
# root-only file the broker gets as a systemd credential. Sourced by install.sh once the release
# is in place (it lives in the release, not in install.sh, to keep the EC2 user data under its
# 16 KB limit), so it shares install.sh's variables and functions (log, die, imds) and sets
# advertised_name (what ADVERTISED_LISTENER_URL names) and changed (restart the broker).
# shellcheck disable=SC2154 # security, region, etc_dir, ... are set by install.sh, which sources this
# shellcheck disable=SC2034 # advertised_name and changed are read by install.sh after this

# The CA and the server certificate live on the data volume, so a replacement instance (new AMI,
# new type) keeps them and clients keep their ca.pem. The CA key stays root-only: the broker never
# needs it. The server certificate is reissued by the same CA when its names no longer match the
# address (a volume restored into another stack) or when it expires within 30 days: at boot, and
# daily by minnow-cert-renew.timer (cert-renewal.sh), which then reloads the broker.
cert_days=${MINNOW_CERT_DAYS:-825}
ca_days=${MINNOW_CA_DAYS:-3650}
ca_dir="${tls_dir}/ca"
dropin_file="${ROOT}/etc/systemd/system/minnow.service.d/security.conf"
password_file="${etc_dir}/admin-password"
mkdir -p "$etc_dir"
if [ "$security" = on ]; then
  # The Elastic IP's public DNS name (ec2-198-51-100-7.<region>.compute.amazonaws.com). CloudFormation
  # associates the Elastic IP only after the boot's signal, so IMDS may still give the launch-time
  # address's name: its suffix is the Elastic IP's too (the VPC's DNS hostnames, "ec2-<address>.
  # <region>.compute.amazonaws.com", compute-1 in us-east-1), so the name is made from it. No name
  # at all: the VPC gives no public DNS hostnames, and the certificate and clients use the address.
  public_dns=$(imds public-hostname || true)
  case "$public_dns" in
    ec2-*.*) public_dns="ec2-${MINNOW_ADVERTISED_HOST//./-}.${public_dns#*.}" advertised_name=$public_dns ;;
    *) public_dns="" ;;
  esac
  sans="IP:${MINNOW_ADVERTISED_HOST},IP:127.0.0.1,DNS:localhost"
  if [ -n "$public_dns" ]; then
    sans="DNS:${public_dns},${sans}"
  fi

  mkdir -p "$ca_dir"
  chmod 0700 "$ca_dir"
  chown root:minnow "$tls_dir"
  chmod 0750 "$tls_dir"
  openssl_conf="${ca_dir}/openssl.cnf"
  cat >"$openssl_conf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
CN = minnow
[ca_ext]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = ${sans}
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
  # Several brokers (storage=postgres) share one CA, so clients trust one ca.pem: the others take
  # broker 1's from the secret, replacing their own.
  shared_ca=""
  if [ -n "${MINNOW_CA_SECRET_ID:-}" ]; then
    # shellcheck source=/dev/null # checked on its own
    . "${release_dir}/deploy/shared-ca.sh"
  fi
  if [ ! -s "${ca_dir}/ca.key" ] || [ ! -s "${tls_dir}/ca.crt" ]; then
    log "generating the CA: ${ca_dir}/ca.key, ${tls_dir}/ca.crt"
    (umask 077 && openssl ecparam -name prime256v1 -genkey -noout -out "${ca_dir}/ca.key.new")
    openssl req -x509 -new -sha256 -days "$ca_days" -key "${ca_dir}/ca.key.new" -config "$openssl_conf" \
      -extensions ca_ext -subj "/CN=minnow CA ${MINNOW_DATA_VOLUME_ID}" -out "${tls_dir}/ca.crt.new"
    mv "${ca_dir}/ca.key.new" "${ca_dir}/ca.key"
    mv "${tls_dir}/ca.crt.new" "${tls_dir}/ca.crt"
    rm -f "${tls_dir}/server.crt" # signed by a CA that is gone
  fi
  chmod 0600 "${ca_dir}/ca.key"
  chmod 0644 "${tls_dir}/ca.crt"
  if [ "$shared_ca" = pending ]; then
    # Broker 1, first boot: share the CA it has just made (key first, then the certificate).
    log "sharing the CA with the other brokers: secret ${MINNOW_CA_SECRET_ID}"
    (umask 077 && cat "${ca_dir}/ca.key" "${tls_dir}/ca.crt" >"${ca_dir}/shared.pem")
    aws --region "$region" secretsmanager put-secret-value --secret-id "$MINNOW_CA_SECRET_ID" \
      --secret-string "file://${ca_dir}/shared.pem" >/dev/null
    rm -f "${ca_dir}/shared.pem"
  fi

  # shellcheck source=/dev/null # checked on its own
  . "${release_dir}/deploy/server-cert.sh"
  if [ ! -s "${tls_dir}/server.key" ] || [ ! -s "${tls_dir}/server.crt" ] ||
    [ "$(cat "${tls_dir}/server.sans" 2>/dev/null)" != "$sans" ] || server_certificate_expiring; then
    log "issuing the server certificate for ${sans}"
    issue_server_certificate "$advertised_name"
    printf '%s\n' "$sans" >"${tls_dir}/server.sans"
    changed=1
  fi
  chown minnow:minnow "${tls_dir}/server.key"
  chmod 0600 "${tls_dir}/server.key"
  chmod 0644 "${tls_dir}/server.crt"

  # Publish the CA certificate for `npm run ops -- ca` (the role may write only this parameter).
  published=$(aws --region "$region" ssm get-parameter --name "$MINNOW_CA_PARAMETER" \
    --query Parameter.Value --output text || true)
  if [ "$published" != "$(cat "${tls_dir}/ca.crt")" ]; then
    log "publishing the CA certificate to SSM parameter ${MINNOW_CA_PARAMETER}"
    aws --region "$region" ssm put-parameter --name "$MINNOW_CA_PARAMETER" --overwrite \
      --value "file://${tls_dir}/ca.crt" >/dev/null
  fi

  # The admin password: root-only on disk, handed to the broker (user minnow) by systemd as a
  # credential (LoadCredential, systemd 247+; AL2023 has 252), so the broker never reads /etc.
  password=$(aws --region "$region" secretsmanager get-secret-value --secret-id "$MINNOW_ADMIN_SECRET_ID" \
    --query SecretString --output text)
  if [ -z "$password" ]; then
    die "secret ${MINNOW_ADMIN_SECRET_ID} is empty: cannot give the broker an admin password"
  fi
  if [ "$(cat "$password_file" 2>/dev/null)" != "$password" ]; then
    log "writing ${password_file}"
    (umask 077 && printf '%s' "$password" >"${password_file}.new")
    mv "${password_file}.new" "$password_file"
    changed=1
  fi
  chmod 0600 "$password_file"
  # The secret is the source of truth for admin's password (`ops password` prints it). A data
  # volume restored from another stack's snapshot keeps that stack's credential, which refuses it:
  # reset the credential from the secret (deploy/admin-credential.js; the broker sees it at the next
  # login). tls/admin-secret-id, on the volume, names the secret that last set it. SQLite only: a
  # cluster's users live in its PostgreSQL database, which no volume restore replaces.
  if [ -z "${MINNOW_DATABASE_SECRET_ID:-}" ]; then
    admin_db="${data_dir}/minnow.db"
    secret_mark="${tls_dir}/admin-secret-id"
    if admin_state=$(printf '%s\n' "$password" |
      "$node_bin" "${release_dir}/deploy/admin-credential.js" "$admin_db" admin); then
      if [ "$admin_state" = reset ]; then
        marked=$(cat "$secret_mark" 2>/dev/null || true)
        if [ -n "$marked" ] && [ "$marked" != "$MINNOW_ADMIN_SECRET_ID" ]; then
          log "admin password reset from the stack's secret: the data volume came from another stack (whose secret was ${marked})"
        else
          log "admin password reset from the stack's secret ${MINNOW_ADMIN_SECRET_ID}: the broker's credential refused it" \
            "(a data volume from another stack, or a password changed with Kafka tools but not in the secret)"
        fi
        # Files SQLite created as root must stay the broker's.
        for f in "$admin_db" "${admin_db}-wal" "${admin_db}-shm"; do
          [ ! -e "$f" ] || chown -h minnow:minnow "$f"
        done
      fi
      if [ "$(cat "$secret_mark" 2>/dev/null)" != "$MINNOW_ADMIN_SECRET_ID" ]; then
        printf '%s\n' "$MINNOW_ADMIN_SECRET_ID" >"$secret_mark"
      fi
    else
      log "warning: could not check admin's credential in ${admin_db} against secret ${MINNOW_ADMIN_SECRET_ID}" \
        "(output above); if the broker refuses the password, see docs/connect-aws.md \"Changing the password\""
    fi
  fi
  unset password
  dropin_text="# Written by minnow-install (MINNOW_SECURITY=on): the admin password as a systemd credential.
[Service]
LoadCredential=admin-password:${password_file}
Environment=MINNOW_ADMIN_PASSWORD_FILE=%d/admin-password"
else
  dropin_text=""
fi

if [ "$(cat "$dropin_file" 2>/dev/null)" != "$dropin_text" ]; then
  if [ -n "$dropin_text" ]; then
    log "writing ${dropin_file}"
    mkdir -p "$(dirname "$dropin_file")"
    printf '%s\n' "$dropin_text" >"$dropin_file"
  else
    log "removing ${dropin_file} and ${password_file} (MINNOW_SECURITY=off)"
    rm -f "$dropin_file" "$password_file"
  fi
  systemctl daemon-reload
  changed=1
fi

# The daily renewal check (a broker that is never rebooted outlives its certificate otherwise).
# shellcheck source=/dev/null # checked on its own
. "${release_dir}/deploy/cert-renewal.sh"
