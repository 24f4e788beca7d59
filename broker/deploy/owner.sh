# shellcheck shell=bash
# The minnow user and group, with fixed ids, and what under /data is theirs. Sourced by install.sh
# once the release is in place (it lives in the release to keep the user data under 16 KB), so it
# shares install.sh's variables and functions (log, die, data_dir, tls_dir).
# shellcheck disable=SC2154 # data_dir, tls_dir are set by install.sh, which sources this
#
# Why fixed: `useradd --system` picks the next free id in AL2023's dynamic system range (201-999),
# so a new AMI, another architecture or a volume restored into another stack can give minnow a new
# uid while /data keeps the old one: SQLITE_READONLY and a crash loop. 61092 (uid and gid) is
# outside that range, outside regular users (UID_MIN 1000 - UID_MAX 60000) and the ids the setup
# package reserves (0-200, 65534), and inside 60578-61183, which systemd documents as unused (after
# systemd-homed's 60001-60513 and nspawn's 60514-60577, before DynamicUser's 61184-65519), so no
# package, homed user or DynamicUser service collides with it.
minnow_id=${MINNOW_UID:-61092}

uid=$(id -u minnow 2>/dev/null || true)
gid=$(id -g minnow 2>/dev/null || true)
if [ "$uid:$gid" != "${minnow_id}:${minnow_id}" ]; then
  for db in passwd group; do
    holder=$(getent "$db" "$minnow_id" | cut -d: -f1 || true)
    if [ -n "$holder" ] && [ "$holder" != minnow ]; then
      die "id ${minnow_id} is taken by ${db} entry ${holder}; set MINNOW_UID in /etc/minnow/install.env to a free id"
    fi
  done
fi
if [ -z "$uid" ]; then
  log "creating the minnow system user (uid and gid ${minnow_id})"
  getent group minnow >/dev/null || groupadd --system --gid "$minnow_id" minnow
  gid=$(getent group minnow | cut -d: -f3)
  [ "$gid" = "$minnow_id" ] || groupmod --gid "$minnow_id" minnow
  useradd --system --uid "$minnow_id" --gid minnow --home-dir /var/lib/minnow --no-create-home \
    --shell /sbin/nologin minnow
elif [ "$uid:$gid" != "${minnow_id}:${minnow_id}" ]; then
  # An instance of an earlier kit: the user has a dynamic id. usermod refuses while it runs.
  log "moving the minnow user from ${uid}:${gid} to ${minnow_id}:${minnow_id}"
  systemctl stop minnow.service
  [ "$gid" = "$minnow_id" ] || groupmod --gid "$minnow_id" minnow
  usermod --uid "$minnow_id" --gid "$minnow_id" minnow
fi

# Everything the broker writes (minnow.db, -wal, -shm, minnow.db.lock, ...) back to minnow: files
# from an old uid, or made by root (a restore, sqlite3), would be read-only to the broker. tls/ is
# security.sh's (root-owned CA). find never follows symlinks and chown -h changes the link itself,
# so a link cannot hand a file outside /data to minnow; -xdev stays on the volume. When all is
# right this is one walk of a handful of entries and no chown at all.
find "$data_dir" -xdev -path "$tls_dir" -prune -o \( ! -uid "$minnow_id" -o ! -gid "$minnow_id" \) \
  -exec chown -h -c "${minnow_id}:${minnow_id}" {} + >&2
chmod 0750 "$data_dir"
