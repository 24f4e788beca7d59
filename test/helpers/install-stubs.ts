// The install sandbox's fixed values and its stub executables (install-sandbox.ts writes them into a
// sandbox): what the AWS, IMDS and system stubs answer, and a fake broker for the probe to reach.
import * as path from 'node:path';
import { REPO_ROOT } from './synth';

export const VOLUME_ID = 'vol-0123456789abcdef0';
export const INSTANCE_ID = 'i-0123456789abcdef0';
export const REGION = 'eu-west-2';
export const FS_UUID = '5d3c6a1e-0000-4000-8000-000000000001';
export const CA_PARAMETER = 'CFN-SecurityCaCertificate07D29BFE-AbCdEf';
export const ADMIN_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:SecurityAdminPassword-AbCdEf';
/** What the secret stub returns unless state/admin-secret says otherwise. */
export const ADMIN_PASSWORD = 'Zr8kq2mW7xYbStubPassword0123456';
/** The public DNS name AWS gives the stub's Elastic IP 203.0.113.99. */
export const PUBLIC_DNS = 'ec2-203-0-113-99.eu-west-2.compute.amazonaws.com';
/** storage=postgres: the RDS secret (lib/constructs/database.ts) and the brokers' shared CA secret. */
export const DATABASE_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:DatabaseInstanceSecret-AbCdEf';
export const CA_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-2:123456789012:secret:SecuritySharedCa-AbCdEf';
/** A generated RDS password with characters a URL gives meaning to (RDS itself excludes " @ / \\ '). */
export const DATABASE_PASSWORD = 'Pq9:x%?#&=+Zr8kq2mW7';
/** What the RDS secret stub returns unless state/database-secret says otherwise. */
export const DATABASE_SECRET_JSON = JSON.stringify({
  engine: 'postgres',
  username: 'minnow',
  password: DATABASE_PASSWORD,
  host: 'minnow-db.abcdefghijkl.eu-west-2.rds.amazonaws.com',
  port: 5432,
  dbname: 'minnow',
});
/** The minnow user's fixed uid and gid (broker/deploy/owner.sh). */
export const MINNOW_ID = 61092;
/** The release's wait condition handle (a presigned S3 URL in a real stack). */
export const SIGNAL_URL =
  'https://cloudformation-waitcondition-eu-west-2.s3.eu-west-2.amazonaws.com/handle?X-Amz-Signature=abc';

export const STUBS: Record<string, string> = {
  // Installed packages: state/packages (removed to model a new root disk) and one pkg-<name> each.
  dnf: `for a in "$@"; do case $a in -* | install) ;; *) touch "$STUB_STATE/pkg-$a" ;; esac; done
touch "$STUB_STATE/packages"`,
  rpm: `[ -e "$STUB_STATE/packages" ] || exit 1
for a in "$@"; do case $a in -*) ;; *) [ -e "$STUB_STATE/pkg-$a" ] || exit 1 ;; esac; done`,
  curl: `case "$*" in
  *api/token*) echo token-123 ;;
  *meta-data/instance-id) echo ${INSTANCE_ID} ;;
  *meta-data/placement/region) echo ${REGION} ;;
  *meta-data/public-ipv4) cat "$STUB_STATE/public-ip" 2>/dev/null || echo "$MINNOW_ADVERTISED_HOST" ;; # the Elastic IP, once associated
  *meta-data/public-hostname)
    [ ! -e "$STUB_STATE/no-public-hostname" ] || exit 22 # IMDS answers 404: the VPC gives no DNS hostnames
    cat "$STUB_STATE/public-hostname" 2>/dev/null || echo ${PUBLIC_DNS} ;;
  *truststore.pki.rds.amazonaws.com*)
    [ ! -e "$STUB_STATE/rds-ca-down" ] || exit 22
    prev=""; for a in "$@"; do if [ "$prev" = -o ]; then printf -- '-----BEGIN CERTIFICATE-----\nRDS\n-----END CERTIFICATE-----\n' >"$a"; fi; prev=$a; done ;;
  *"${SIGNAL_URL}"*)
    prev=""; for a in "$@"; do if [ "$prev" = --data-binary ]; then printf '%s\\n' "$a" >>"$STUB_STATE/signals"; fi; prev=$a; done ;;
  *) echo "curl stub: unexpected $*" >&2; exit 22 ;;
esac`,
  // EC2 as files: volume-holder (the instance the volume is attached to; none: available),
  // volume-attachment (its state, default attached), volume-device (default the attach's --device);
  // instance-<id> ("<state> <tag minnow:data-volume or None>"; a stopping one is stopped after
  // stopping-polls DescribeInstances). throttle-<action> counts
  // RequestLimitExceeded answers to come; ec2-log lists the state-changing calls in order.
  aws: `ec2_fail() { echo "An error occurred ($1) when calling the $2 operation: $3" >&2; exit 254; }
action=$(echo "$*" | sed -n 's/.* ec2 \\([a-z-]*\\).*/\\1/p')
case "$*" in *" ec2 "*)
  n=$(cat "$STUB_STATE/throttle-$action" 2>/dev/null || echo 0)
  if [ "$n" -gt 0 ]; then echo $((n - 1)) >"$STUB_STATE/throttle-$action"; ec2_fail RequestLimitExceeded "$action" "Request limit exceeded."; fi
  case $action in describe-*) ;; *) echo "$*" >>"$STUB_STATE/ec2-log" ;; esac ;;
esac
arg() { prev=""; for a in "$@"; do if [ "$prev" = "$ARG" ]; then echo "$a"; fi; prev=$a; done; }
case "$*" in
  *"ec2 attach-volume"*)
    n=$(cat "$STUB_STATE/attach-failures" 2>/dev/null || echo 0)
    if [ "$n" -gt 0 ]; then echo $((n - 1)) >"$STUB_STATE/attach-failures"; echo "An error occurred (VolumeInUse)" >&2; exit 254; fi
    if [ -e "$STUB_STATE/attach-error" ]; then cat "$STUB_STATE/attach-error" >&2; exit 254; fi
    [ ! -e "$STUB_STATE/volume-holder" ] || ec2_fail VolumeInUse AttachVolume "vol is already attached to an instance"
    [ ! -e "$STUB_STATE/attach-dropped" ] || exit 0
    vol=$(ARG=--volume-id arg "$@")
    ARG=--instance-id arg "$@" >"$STUB_STATE/volume-holder"
    [ -e "$STUB_STATE/volume-device" ] || ARG=--device arg "$@" >"$STUB_STATE/volume-device"
    [ ! -e "$STUB_STATE/attach-no-device" ] || exit 0
    if [ -e "$STUB_STATE/xen" ]; then mkdir -p "$ROOT/dev"; touch "$ROOT/dev/xvdf"; exit 0; fi
    mkdir -p "$ROOT/dev/disk/by-id"
    touch "$ROOT/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_$(echo "$vol" | tr -d -)" ;;
  *"ec2 describe-volumes"*)
    if [ -e "$STUB_STATE/volume-holder" ]; then
      printf 'in-use\\t%s\\t%s\\t%s\\n' "$(cat "$STUB_STATE/volume-holder")" \\
        "$(cat "$STUB_STATE/volume-attachment" 2>/dev/null || echo attached)" "$(cat "$STUB_STATE/volume-device" 2>/dev/null || echo /dev/sdf)"
    else printf 'available\\tNone\\tNone\\tNone\\n'; fi ;;
  *"ec2 detach-volume"*)
    [ "$(cat "$STUB_STATE/volume-holder" 2>/dev/null)" = "$(ARG=--instance-id arg "$@")" ] ||
      ec2_fail IncorrectState DetachVolume "volume is not attached to that instance"
    rm -f "$STUB_STATE/volume-holder" "$STUB_STATE/volume-attachment" "$STUB_STATE/volume-device" "$ROOT/dev/xvdf"
    rm -rf "$ROOT/dev/disk" ;;
  *"ec2 describe-instances"*)
    id=$(ARG=--instance-ids arg "$@")
    [ -e "$STUB_STATE/instance-$id" ] || ec2_fail InvalidInstanceID.NotFound DescribeInstances "no $id"
    read -r state tag <"$STUB_STATE/instance-$id"
    n=$(cat "$STUB_STATE/stopping-polls" 2>/dev/null || echo 0)
    if [ "$state" = stopping ]; then
      if [ "$n" -gt 0 ]; then echo $((n - 1)) >"$STUB_STATE/stopping-polls"; else state=stopped; echo "$state $tag" >"$STUB_STATE/instance-$id"; fi
    fi
    printf '%s\\t%s\\n' "$state" "$tag" ;;
  *"ec2 stop-instances"* | *"ec2 start-instances"*)
    id=$(ARG=--instance-ids arg "$@")
    [ ! -e "$STUB_STATE/$action-error" ] || { cat "$STUB_STATE/$action-error" >&2; exit 254; }
    case $action in stop-instances) to=stopping ;; *) to=running ;; esac
    echo "$to $(cut -d' ' -f2 "$STUB_STATE/instance-$id")" >"$STUB_STATE/instance-$id" ;;
  *"s3 cp"*)
    dest=""; for a in "$@"; do dest=$a; done
    cp "$STUB_ASSET_ZIP" "$dest" ;;
  *"ssm get-parameter --name ${CA_PARAMETER} "*)
    cat "$STUB_STATE/ssm-ca" 2>/dev/null || echo "pending: the instance publishes its CA certificate here" ;;
  *"ssm put-parameter --name ${CA_PARAMETER} "*)
    prev=""; for a in "$@"; do if [ "$prev" = --value ]; then cp "\${a#file://}" "$STUB_STATE/ssm-ca"; fi; prev=$a; done ;;
  *"secretsmanager get-secret-value --secret-id ${ADMIN_SECRET_ARN} "*)
    cat "$STUB_STATE/admin-secret" 2>/dev/null || echo ${ADMIN_PASSWORD} ;;
  *"secretsmanager get-secret-value --secret-id ${DATABASE_SECRET_ARN} "*)
    cat "$STUB_STATE/database-secret" 2>/dev/null || echo '${DATABASE_SECRET_JSON}' ;;
  *"secretsmanager get-secret-value --secret-id ${CA_SECRET_ARN} "*)
    cat "$STUB_STATE/shared-ca" 2>/dev/null || echo "pending: the instance publishes its CA certificate here" ;;
  *"secretsmanager put-secret-value --secret-id ${CA_SECRET_ARN} "*)
    prev=""; for a in "$@"; do if [ "$prev" = --secret-string ]; then cp "\${a#file://}" "$STUB_STATE/shared-ca"; fi; prev=$a; done ;;
  *"ec2 modify-instance-credit-specification "*)
    [ ! -e "$STUB_STATE/credit-denied" ] || { echo "An error occurred (UnauthorizedOperation)" >&2; exit 254; }
    cat "$STUB_STATE/credit-unsuccessful" 2>/dev/null || echo None ;;
  *) echo "aws stub: unexpected $*" >&2; exit 2 ;;
esac`,
  // state/user-minnow holds "uid:gid" of the minnow user; state/group-minnow the group's gid.
  id: `[ "$2" = minnow ] && [ -e "$STUB_STATE/user-minnow" ] || exit 1
case "$1" in -u) cut -d: -f1 "$STUB_STATE/user-minnow" ;; -g) cut -d: -f2 "$STUB_STATE/user-minnow" ;; esac`,
  getent: `case "$1 $2" in
  "group minnow") [ -e "$STUB_STATE/group-minnow" ] && echo "minnow:x:$(cat "$STUB_STATE/group-minnow"):" ;;
  *) [ -e "$STUB_STATE/getent-$1-$2" ] && cat "$STUB_STATE/getent-$1-$2" ;;
esac`,
  groupadd: 'echo "$3" >"$STUB_STATE/group-minnow"',
  groupmod: 'echo "$2" >"$STUB_STATE/group-minnow"',
  useradd: 'echo "$3:$(cat "$STUB_STATE/group-minnow")" >"$STUB_STATE/user-minnow"',
  usermod: 'echo "$2:$4" >"$STUB_STATE/user-minnow"',
  blkid: `case "$*" in
  *TYPE*) if [ -e "$STUB_STATE/formatted" ]; then echo xfs; else exit 2; fi ;;
  *UUID*) echo ${FS_UUID} ;;
esac`,
  'mkfs.xfs': 'touch "$STUB_STATE/formatted"',
  mountpoint: '[ -e "$STUB_STATE/mounted" ]',
  mount: 'touch "$STUB_STATE/mounted"',
  umount: 'rm "$STUB_STATE/mounted"',
  xfs_growfs: 'true',
  // Real as root (the ownership tests need it), names mapped to the fixed ids; else only recorded.
  chown: `[ "$(/usr/bin/id -u)" = 0 ] || exit 0
args=(); for a in "$@"; do case "$a" in minnow:minnow) a=${MINNOW_ID}:${MINNOW_ID} ;; root:minnow) a=0:${MINNOW_ID} ;; esac; args+=("$a"); done
exec /bin/chown "\${args[@]}"`,
  // The broker: a fake that answers ApiVersions (fake-broker.js) on the env file's plaintext port,
  // unless state/broker-down exists or state/broken-releases names the release \`current\` points to.
  systemctl: `pidfile="$STUB_STATE/broker.pid"
case "$1" in
  start | restart | stop)
    if [ "$1" = start ] && [ -e "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then exit 0; fi
    port=$(sed -n 's#^LISTENER_URL=.*tcp://[^:]*:\\([0-9]*\\).*$#\\1#p' "$ROOT/etc/minnow/minnow.env" 2>/dev/null)
    if [ -e "$pidfile" ]; then
      kill "$(cat "$pidfile")" 2>/dev/null || true
      rm -f "$pidfile"
      # Until nothing answers on the port the next one binds (at most 5 s), rather than a fixed sleep.
      for _ in {1..100}; do [ -n "$port" ] && (: <"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break; sleep 0.05; done
    fi
    [ "$1" != stop ] || exit 0
    [ ! -e "$STUB_STATE/broker-down" ] || exit 0
    release=$(basename "$(readlink "$ROOT/opt/minnow/current")")
    ! grep -qxF "$release" "$STUB_STATE/broken-releases" 2>/dev/null || exit 0
    "$MINNOW_NODE" "$(dirname "$0")/fake-broker.js" "$port" >/dev/null 2>&1 &
    echo $! >"$pidfile" ;;
  # ExecReload=/bin/kill -HUP $MAINPID; like systemd, fails when the broker is not running.
  reload)
    [ -e "$pidfile" ] && kill -HUP "$(cat "$pidfile")" 2>/dev/null || { echo "minnow.service is not active" >&2; exit 1; } ;;
esac`,
  // The CloudWatch agent's control script (deploy/observe.sh): fetch-config validates the JSON.
  'amazon-cloudwatch-agent-ctl': `[ ! -e "$STUB_STATE/agent-broken" ] || exit 1`,
  // npm ci for real would rebuild native modules from the registry; link the repository's installed
  // node_modules instead (the workspaces root holds the broker's dependencies), which is what
  // `npm ci --omit=dev` produces plus dev and kit dependencies.
  'npm-22': `n=$(cat "$STUB_STATE/npm-failures" 2>/dev/null || echo 0)
if [ "$n" -gt 0 ]; then echo $((n - 1)) >"$STUB_STATE/npm-failures"; echo "npm stub: gyp ERR!" >&2; exit 1; fi
ln -sfn "${path.join(REPO_ROOT, 'node_modules')}" node_modules`,
};

/**
 * A broker stand-in: answers every request with an ApiVersions v0 response (error 0), appends a line
 * to state/hangups on each SIGHUP; gone after 60 s.
 */
export const FAKE_BROKER = `const net = require('node:net');
// SIGHUP (systemctl reload) re-reads the TLS files in the real broker; here it is counted.
process.on('SIGHUP', () => require('node:fs').appendFileSync(process.env.STUB_STATE + '/hangups', 'HUP\\n'));
const server = net.createServer((socket) => {
  let buf = Buffer.alloc(0);
  socket.on('error', () => {});
  socket.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
      const correlationId = buf.readInt32BE(8);
      buf = buf.subarray(4 + buf.readInt32BE(0));
      const body = Buffer.alloc(16);
      body.writeInt32BE(correlationId, 0); // error 0, one api key: 18 (ApiVersions) v0-v4
      body.writeInt32BE(1, 6);
      body.writeInt16BE(18, 10);
      body.writeInt16BE(4, 14);
      const size = Buffer.alloc(4);
      size.writeInt32BE(body.length);
      socket.write(Buffer.concat([size, body]));
    }
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1');
setTimeout(() => process.exit(0), 60000);
`;
