# shellcheck shell=bash
# storage=postgres (several brokers on one RDS PostgreSQL, lib/postgres-stack.ts): the URL the broker
# gets as STORAGE_ENGINE, built on every boot from the RDS secret (username, password, host, port,
# dbname), so the password is never in the user data, the template or a command line. Sourced by
# configure.sh when MINNOW_DATABASE_SECRET_ID is set; shares install.sh's variables and functions
# (log, die, region, etc_dir, node_bin) and sets storage_engine.
# shellcheck disable=SC2154 # region, etc_dir, node_bin are set by install.sh
# shellcheck disable=SC2034 # storage_engine is read by configure.sh

# RDS requires TLS (rds.force_ssl); the broker verifies the server against Amazon's RDS CA bundle
# for this region (sslmode=verify-full), refreshed on every boot, the last good copy kept.
rds_ca_file="${etc_dir}/rds-ca.pem"
rds_ca_url=${MINNOW_RDS_CA_URL:-https://truststore.pki.rds.amazonaws.com/${region}/${region}-bundle.pem}
if curl -sSf --retry 5 -o "${rds_ca_file}.new" "$rds_ca_url" && grep -q 'BEGIN CERTIFICATE' "${rds_ca_file}.new"; then
  if ! cmp -s "${rds_ca_file}.new" "$rds_ca_file"; then
    log "installing the RDS CA bundle ${rds_ca_file}"
    mv "${rds_ca_file}.new" "$rds_ca_file"
    changed=1
  fi
elif [ -s "$rds_ca_file" ]; then
  log "warning: could not download ${rds_ca_url}; keeping ${rds_ca_file}"
else
  die "could not download the RDS CA bundle ${rds_ca_url}: the broker cannot verify the database"
fi
rm -f "${rds_ca_file}.new"
chmod 0644 "$rds_ca_file"

# The secret goes to node on stdin; each part of the URL is percent-encoded (the generated password
# may hold characters a URL gives meaning to).
# shellcheck disable=SC2016 # the single-quoted text is JavaScript
storage_engine=$(aws --region "$region" secretsmanager get-secret-value --secret-id "$MINNOW_DATABASE_SECRET_ID" \
  --query SecretString --output text | "$node_bin" -e '
let text = "";
process.stdin.on("data", (c) => (text += c)).on("end", () => {
  const s = JSON.parse(text);
  for (const k of ["username", "password", "host", "port"]) if (!s[k]) throw new Error(`no ${k}`);
  const e = encodeURIComponent;
  const db = e(s.dbname || "postgres");
  process.stdout.write(`postgres://${e(s.username)}:${e(s.password)}@${s.host}:${s.port}/${db}` +
    `?sslmode=verify-full&sslrootcert=${process.argv[1]}`);
});' "$rds_ca_file" 2>/dev/null) ||
  die "cannot read the database secret ${MINNOW_DATABASE_SECRET_ID} (expected the RDS secret JSON: username, password, host, port)"
