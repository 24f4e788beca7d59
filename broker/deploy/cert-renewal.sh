# shellcheck shell=bash
# Installs the daily certificate check (minnow-cert-renew.timer, which runs
# deploy/renew-certificate.sh) with MINNOW_SECURITY=on, and removes it with off. Sourced by
# security.sh, so it shares install.sh's variables and functions (log, ROOT, security, cert_days).
# shellcheck disable=SC2154 # log, ROOT, security, release_dir, cert_days are set by install.sh and security.sh

renew_units_dir="${ROOT}/etc/systemd/system"
renew_units_changed=0
for renew_unit in minnow-cert-renew.service minnow-cert-renew.timer; do
  if [ "$security" = on ]; then
    renew_text=$(sed -e "s#@ROOT@#${ROOT}#g" -e "s#@CERT_DAYS@#${cert_days}#g" "${release_dir}/deploy/${renew_unit}")
    if [ "$(cat "${renew_units_dir}/${renew_unit}" 2>/dev/null)" != "$renew_text" ]; then
      log "writing ${renew_units_dir}/${renew_unit}"
      mkdir -p "$renew_units_dir"
      printf '%s\n' "$renew_text" >"${renew_units_dir}/${renew_unit}.new"
      mv "${renew_units_dir}/${renew_unit}.new" "${renew_units_dir}/${renew_unit}"
      renew_units_changed=1
    fi
  elif [ -e "${renew_units_dir}/${renew_unit}" ]; then
    [ "$renew_unit" != minnow-cert-renew.timer ] || systemctl disable --now minnow-cert-renew.timer || true
    log "removing ${renew_units_dir}/${renew_unit} (MINNOW_SECURITY=off: no certificate to renew)"
    rm -f "${renew_units_dir}/${renew_unit}"
    renew_units_changed=1
  fi
done
if [ "$renew_units_changed" = 1 ]; then
  systemctl daemon-reload
fi
if [ "$security" = on ]; then
  # Idempotent: enabled for the next boots, started for this one. Not worth failing the boot for:
  # the boot itself renews, so the next one covers a timer that could not start.
  systemctl enable --now minnow-cert-renew.timer ||
    log "warning: minnow-cert-renew.timer did not start: the certificate is renewed at boot only"
fi
