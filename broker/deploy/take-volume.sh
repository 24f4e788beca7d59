# shellcheck shell=bash
# Takes the data volume for this instance, from the instance it replaces if need be, and gives it
# back if the boot fails after that. Sourced by install.sh once the release is installed on the root
# volume (it lives in the release to keep the user data under 16 KB), so it shares install.sh's
# variables and functions (log, die, region, instance_id, previous_file, data_dir, poll_s, ...); sets
# device, and defines give_back, which install.sh's fail runs before it signals FAILURE.
# shellcheck disable=SC2154 # region, instance_id, previous_file, data_dir, ... are set by install.sh
# shellcheck disable=SC2034 # device is read by install.sh after this
#
# Why the boot takes the volume itself: when CloudFormation replaces the instance (new AMI, x86 <->
# Graviton), it creates the new one first and deletes the old one only in the cleanup phase, after
# the whole update has succeeded (CloudFormation, "Update behaviors of stack resources"). So this
# boot first installs Node.js and the release while the old instance still serves, and only then:
# 1. the volume is available: attach it; attached here already (a reboot): go on;
# 2. attached to an instance tagged minnow:data-volume=<this volume> (the previous instance of this
#    broker): stop it (its minnow.service stops gracefully at shutdown, which closes SQLite), detach
#    the volume once it is stopped, attach it here; attached to any other instance: die naming it.
# The previous instance's id goes to /etc/minnow/previous-instance before it is stopped: if this boot
# fails later, give_back detaches the volume, starts that instance again (its own boot attaches the
# volume) and the FAILURE says so; CloudFormation's rollback then deletes this instance. Once the
# broker answers, install.sh removes the file: the takeover stands.
vol=$MINNOW_DATA_VOLUME_ID
# Nitro exposes EBS as NVMe with a by-id link named after the volume id without its dash, which can
# only be this volume. Xen types (t2) show an attachment as /dev/xvdf: used only once EC2 says this
# volume is attached here as /dev/sdf, so that no other volume is ever taken for it (issue 28).
by_id="${ROOT}/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${vol//-/}"
xen_device="${ROOT}/dev/xvdf"
ec2_error_file="${ROOT}/run/minnow-install.ec2-error"
mkdir -p "${ROOT}/run"

# ec2 ACTION ARGS...: one EC2 call, its output in ec2_out. On an error, ec2_error holds EC2's message
# on one line, and the status says what it is: 1 worth trying again later (throttling, an EC2 fault,
# or no answer at all: a network error), 2 anything else EC2 answered.
ec2() {
  ec2_error=""
  if ec2_out=$(aws --region "$region" ec2 "$@" 2>"$ec2_error_file"); then
    return 0
  fi
  ec2_error=$(tr -s '\n' ' ' <"$ec2_error_file") ec2_error=${ec2_error# } ec2_error=${ec2_error% }
  case "$ec2_error" in
    *RequestLimitExceeded* | *Throttling* | *InternalError* | *Unavailable*) return 1 ;;
    *"An error occurred ("*) return 2 ;;
    *) return 1 ;;
  esac
}

# The volume's state, its holder, the attachment's state and device ("None" where there is none).
describe_volume() {
  ec2 describe-volumes --volume-ids "$vol" --output text \
    --query 'Volumes[0].[State,Attachments[0].InstanceId,Attachments[0].State,Attachments[0].Device]'
}

# Sleeps poll_s, doubled for each EC2 call that had to be tried again since the last step forward
# (at most 16 times).
pause() {
  sleep "$(awk -v p="$poll_s" -v n="$retries" 'BEGIN { if (n > 4) n = 4; print p * 2 ^ n }')"
}

# After an EC2 call that failed with status $1: count a retry, or die with what was being done ($2).
retry_or_die() {
  [ "$1" = 1 ] || die "$2 failed (${ec2_error})"
  retries=$((retries + 1))
  log "$2 failed (${ec2_error}); trying again"
}

# A refused attach (no right to the volume's KMS key) must not look like a volume still held: EC2
# either refuses the call or accepts it and drops the volume back to available.
refused() {
  die "attaching ${vol} was refused ($1). If the account's default EBS key is a customer-managed KMS key (aws ec2 get-ebs-default-kms-key-id), deploy with -c dataVolumeKmsKeyArn=<its key ARN> so this instance's role may use it; if you did, the key must be enabled and its key policy must let IAM policies grant it (docs/deploy.md)"
}

attach_here() {
  local status=0
  ec2 attach-volume --volume-id "$vol" --instance-id "$instance_id" --device /dev/sdf || status=$?
  case "$status:$ec2_error" in
    0:*) attach_requested=1 retries=0 ;;
    *UnauthorizedOperation* | *AccessDenied* | *KMS* | *Kms*) refused "$ec2_error" ;;
    # Still detached from the previous instance, or attached to another since it was read.
    *VolumeInUse* | *IncorrectState*) log "cannot attach ${vol} yet (${ec2_error}); waiting" ;;
    *) retry_or_die "$status" "attaching ${vol}" ;;
  esac
}

# The volume is attached to instance $1, which is not this one.
take_from() {
  local holder=$1 state tag status=0
  ec2 describe-instances --instance-ids "$holder" --output text \
    --query "Reservations[0].Instances[0].[State.Name,Tags[?Key=='minnow:data-volume'].Value|[0]]" || status=$?
  [ "$status" = 0 ] || {
    retry_or_die "$status" "reading instance ${holder}, which holds ${vol},"
    return 0
  }
  read -r state tag <<<"$ec2_out"
  if [ "$tag" != "$vol" ]; then
    die "volume ${vol} is attached to instance ${holder} (${state}), which is not an instance of this broker (its tag minnow:data-volume is '${tag}', not ${vol}); detach it from there (aws ec2 detach-volume --volume-id ${vol}) and deploy again"
  fi
  waiting="the previous instance ${holder} is ${state}"
  case "$state" in
    pending | running)
      if [ -z "$stop_requested" ]; then
        mkdir -p "$(dirname "$previous_file")"
        printf '%s\n' "$holder" >"$previous_file" # before the stop: the boot may have to give it back
        log "stopping ${holder}, the previous instance of this broker, to take over ${vol} (this instance is ready: release ${release_id} installed)"
      fi
      status=0
      ec2 stop-instances --instance-ids "$holder" || status=$?
      if [ "$status" = 0 ]; then
        stop_requested=1 retries=0
      elif [ "$status" = 2 ] && [ -z "$stop_requested" ]; then
        rm -f "$previous_file" # not stopped: nothing to give back
        die "stopping ${holder}, the previous instance of this broker, to take over ${vol} was refused (${ec2_error})"
      else
        retry_or_die "$status" "stopping ${holder}"
      fi
      ;;
    stopped)
      log "detaching ${vol} from ${holder} (stopped)"
      status=0
      ec2 detach-volume --volume-id "$vol" --instance-id "$holder" || status=$?
      case "$status:$ec2_error" in
        0:* | *IncorrectState*) retries=0 ;;
        *) retry_or_die "$status" "detaching ${vol} from ${holder}" ;;
      esac
      ;;
    *) ;; # stopping, shutting-down, terminated: EC2 lets go of the volume by itself or soon may
  esac
}

# Undoes the takeover after a failure: the volume back to the previous instance, which is started
# again (its own boot attaches the volume). Prints what it did, for the FAILURE's reason; every
# step is tried whatever the one before did. Nothing to do unless this boot stopped an instance.
give_back() {
  local previous state="" holder="" attach_state="" deadline
  previous=$(cat "$previous_file" 2>/dev/null) && [ -n "$previous" ] || return 0
  rm -f "$previous_file"
  log "giving ${vol} back to the previous instance ${previous}"
  systemctl stop minnow.service || true
  ! mountpoint -q "$data_dir" || umount "$data_dir" || log "warning: could not unmount ${data_dir}"
  retries=0
  deadline=$((SECONDS + attach_timeout_s))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if describe_volume; then
      read -r state holder attach_state _ <<<"$ec2_out"
      [ "$holder" = "$instance_id" ] || break # available, or still the previous instance's
      [ "$attach_state" = detaching ] || ec2 detach-volume --volume-id "$vol" --instance-id "$instance_id" ||
        log "detaching ${vol} from this instance failed (${ec2_error})"
    else
      retries=$((retries + 1))
    fi
    pause
  done
  [ "$holder" != "$instance_id" ] || log "warning: ${vol} is still attached here (${state}); starting ${previous} anyway"
  retries=0
  until ec2 start-instances --instance-ids "$previous"; do
    retries=$((retries + 1))
    if [ "$retries" -gt 5 ] || [ "$SECONDS" -ge "$deadline" ]; then
      printf '; starting the previous instance %s failed (%s): start it yourself (aws ec2 start-instances --instance-ids %s)' \
        "$previous" "$ec2_error" "$previous"
      return 0
    fi
    pause
  done
  printf '; the previous instance %s was started again' "$previous"
}

deadline=$((SECONDS + attach_timeout_s))
attach_requested=0 dropped=0 retries=0 stop_requested="" device="" waiting="${vol} is not attached yet"
until [ -e "$by_id" ] && device=$by_id; do
  [ "$SECONDS" -lt "$deadline" ] || die "volume ${vol} did not appear within ${attach_timeout_s}s (${waiting})"
  status=0
  describe_volume || status=$?
  if [ "$status" != 0 ]; then
    retry_or_die "$status" "reading the state of ${vol}"
  else
    read -r state holder attach_state attach_device <<<"$ec2_out"
    waiting="last seen ${state}"
    [ "$holder" = None ] || waiting="${waiting}, ${attach_state} to ${holder} as ${attach_device}"
    if [ "$holder" = "$instance_id" ]; then
      if [ "$attach_state" = attached ] && [ -e "$xen_device" ] && [ "$attach_device" = /dev/sdf ]; then
        device=$xen_device
        break
      fi
    elif [ "$state" = available ]; then
      if [ "$attach_requested" = 1 ]; then
        # Thrice, as DescribeVolumes may lag behind a fresh attach.
        dropped=$((dropped + 1)) attach_requested=0
        [ "$dropped" -lt 3 ] || refused "back to available after attaching, ${dropped} times"
      fi
      attach_here
    elif [ "$holder" != None ] && [ "$attach_state" != detaching ]; then
      take_from "$holder"
    fi
  fi
  pause
done
