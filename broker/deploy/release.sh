# shellcheck shell=bash
# Puts a broker release into service, only if it answers, and tells CloudFormation. Sourced last
# by install.sh (it lives in the release to keep the user data under 16 KB), so it shares
# install.sh's variables and functions (log, die, signal, app_dir, release_id, changed, ...).
# shellcheck disable=SC2154 # app_dir, release_id, node_bin, security, ports are set by install.sh
#
# releases/<id> are installed side by side; `current` names the one the unit runs and `previous`
# the one before it. A new release becomes `current` and is restarted; if it does not answer an
# ApiVersions request on loopback (deploy/probe.js) within MINNOW_HEALTH_TIMEOUT_S, `current` goes
# back to the previous release, which is restarted, and the boot signals FAILURE with the reason.
# `minnow-rollback` (MINNOW_ROLLBACK=1) runs the same switch towards `previous`, and remembers the
# release it left so that later boots of the same deploy keep the rollback (docs/deploy.md).
health_timeout_s=${MINNOW_HEALTH_TIMEOUT_S:-120}
if [ "$security" = on ]; then probe_port=$loopback_port; else probe_port=$port; fi
rolled_back_mark="${app_dir}/rolled-back"
current=$(readlink "${app_dir}/current" || true)
previous=$(readlink "${app_dir}/previous" || true)
want="releases/${release_id}"

install -D -m 0755 "${release_dir}/deploy/rollback.sh" "${ROOT}/usr/local/sbin/minnow-rollback"
if [ "${MINNOW_ROLLBACK:-}" = 1 ]; then
  if [ -z "$previous" ] || [ ! -e "${app_dir}/${previous}/.installed" ] || [ "$previous" = "$current" ]; then
    die "no previous release to roll back to (${app_dir}/previous is '${previous}', current is '${current}')"
  fi
  log "rolling back from ${current#releases/} to ${previous#releases/}"
  printf '%s\n' "${current#releases/}" >"$rolled_back_mark"
  want=$previous
elif [ -n "$current" ] && [ "$(cat "$rolled_back_mark" 2>/dev/null)" = "$release_id" ]; then
  log "release ${release_id} was rolled back (minnow-rollback): keeping ${current#releases/} until another release is deployed"
  want=$current
else
  rm -f "$rolled_back_mark" # the stack names another release now: the rollback is over
fi

answers() { "$node_bin" "${release_dir}/deploy/probe.js" 127.0.0.1 "$probe_port" "$health_timeout_s"; }
point() {
  ln -sfn "$2" "${app_dir}/$1.new"
  mv -T "${app_dir}/$1.new" "${app_dir}/$1"
}

systemctl enable minnow.service
if [ "$want" = "$current" ]; then
  if [ "$changed" = 1 ]; then
    systemctl restart minnow.service
  else
    systemctl start minnow.service
  fi
  answers || die "minnow ${current#releases/} does not answer on 127.0.0.1:${probe_port} within ${health_timeout_s}s; see journalctl -u minnow"
else
  # Before stopping the running broker: do the new release's native modules load at all?
  if ! (cd "${app_dir}/${want}" && "$node_bin" -e "new (require('better-sqlite3'))(':memory:').close()"); then
    [ -z "$current" ] || systemctl start minnow.service || true
    die "release ${want#releases/} cannot load better-sqlite3 (npm ci output above); ${current#releases/} keeps running"
  fi
  log "switching from ${current:-nothing} to ${want}"
  point current "$want"
  systemctl restart minnow.service || true # the probe says whether it runs
  if ! answers; then
    reason="release ${want#releases/} did not answer on 127.0.0.1:${probe_port} within ${health_timeout_s}s"
    if [ -n "$current" ] && [ -e "${app_dir}/${current}/.installed" ]; then
      point current "$current"
      systemctl restart minnow.service || true
      if answers; then
        reason="${reason}; back on ${current#releases/}, which answers"
      else
        reason="${reason}; back on ${current#releases/}, which does not answer either"
      fi
    fi
    die "${reason} (journalctl -u minnow)"
  fi
  [ -z "$current" ] || point previous "$current"
  [ "$want" != "releases/${release_id}" ] || rm -f "$rolled_back_mark"
  # Keep the running release and the one before it.
  for dir in "${app_dir}"/releases/*; do
    [ -d "$dir" ] || continue
    case "releases/$(basename "$dir")" in
      "$want" | "$current") ;;
      *) rm -rf "$dir" ;;
    esac
  done
fi
log "minnow ${want#releases/} answers: advertised as ${advertised_name}:${port} (security ${security}), data on ${data_dir}"
signal SUCCESS "minnow ${want#releases/} answers on 127.0.0.1:${probe_port}"
