# shellcheck shell=bash
# minnow's monitoring on the instance, and its CPU credit mode. Sourced by install.sh once the
# broker answers (it lives in the release, not in install.sh, to keep the EC2 user data
# under its 16 KB limit), so it shares install.sh's variables and functions (log, ROOT, region,
# instance_id, release_dir, etc_dir, security, port, loopback_port, metrics_port, poll_s).
# Settings (install.env): MINNOW_LOG_GROUP, MINNOW_METRICS_LOG_GROUP, MINNOW_CPU_CREDITS,
# MINNOW_METRICS_PORT=9464 (read by install.sh).
#
# 1. The CloudWatch agent (MINNOW_LOG_GROUP and MINNOW_METRICS_LOG_GROUP set): memory and disk
#    use, the broker's Prometheus endpoint scraped into the `minnow` namespace, and the broker's
#    journal, copied to /var/log/minnow/broker.log by minnow-journal.service (the agent reads files,
#    not journald) and shipped to the stack's log group.
# 2. The credit mode (MINNOW_CPU_CREDITS set): the stack launches burstable instances unlimited so
#    the first boot (dnf, npm ci, the agent) is not throttled at baseline with 0 credits; once the
#    broker answers, the instance switches itself to the configured mode. Every boot, idempotent.
#
# Monitoring must never stop the broker's boot: each failure is a warning, and the boot goes on.
# shellcheck disable=SC2154 # log, region, instance_id, ... are set by install.sh, which sources this

deploy_dir="${release_dir}/deploy"
agent_etc="${ROOT}/opt/aws/amazon-cloudwatch-agent/etc"
agent_config="${agent_etc}/minnow.json"
units_dir="${ROOT}/etc/systemd/system"

# Writes text $2 to file $1 if it differs; succeeds only when it wrote.
write_if_changed() {
  if [ "$(cat "$1" 2>/dev/null)" = "$2" ]; then
    return 1
  fi
  mkdir -p "$(dirname "$1")"
  printf '%s\n' "$2" >"$1.new" && mv "$1.new" "$1"
}

# A file of the release with this instance's values in place of its @PLACEHOLDERS@.
render() {
  sed -e "s#@ROOT@#${ROOT}#g" -e "s#@INSTANCE_ID@#${instance_id}#g" -e "s#@METRICS_PORT@#${metrics_port}#g" \
    -e "s#@BROKER_LOG_GROUP@#${MINNOW_LOG_GROUP}#g" -e "s#@METRICS_LOG_GROUP@#${MINNOW_METRICS_LOG_GROUP}#g" \
    "${deploy_dir}/$1"
}

setup_cloudwatch_agent() {
  local agent_changed=0 journal_changed=0 ctl
  if ! rpm -q --quiet amazon-cloudwatch-agent logrotate; then
    log "installing the CloudWatch agent and logrotate"
    dnf install -y amazon-cloudwatch-agent logrotate || return 1
  fi
  write_if_changed "$agent_config" "$(render cloudwatch-agent.json)" && agent_changed=1
  write_if_changed "${agent_etc}/prometheus.yaml" "$(render prometheus.yaml)" && agent_changed=1
  write_if_changed "${units_dir}/amazon-cloudwatch-agent.service.d/minnow.conf" \
    "$(render cloudwatch-agent-limits.conf)" && agent_changed=1
  write_if_changed "${units_dir}/minnow-journal.service" "$(render minnow-journal.service)" && journal_changed=1
  write_if_changed "${etc_dir}/broker-logrotate.conf" "$(render broker-logrotate.conf)" && journal_changed=1
  if [ $((agent_changed + journal_changed)) -gt 0 ]; then
    systemctl daemon-reload || return 1
  fi
  systemctl enable minnow-journal.service || return 1
  if [ "$journal_changed" = 1 ]; then
    systemctl restart minnow-journal.service || return 1
  else
    systemctl start minnow-journal.service || return 1
  fi
  if [ "$agent_changed" = 1 ]; then
    log "configuring the CloudWatch agent (${agent_config}): logs to ${MINNOW_LOG_GROUP}, metrics to namespace minnow"
    # The RPM puts the control script under /opt; fetch-config -s validates, enables and (re)starts.
    ctl=$(command -v amazon-cloudwatch-agent-ctl || echo /opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl)
    "$ctl" -a fetch-config -m ec2 -s -c "file:${agent_config}" || return 1
  else
    systemctl start amazon-cloudwatch-agent.service || return 1
  fi
}

# Sets the credit mode. install.sh sources this after deploy/release.sh, which returns only once the
# broker answers ApiVersions on loopback (else the boot has died): the first boot is over.
set_cpu_credit_mode() {
  local refused
  # A refused change comes back in the response (exit 0), e.g. unlimited on a host-tenancy T3.
  refused=$(aws --region "$region" ec2 modify-instance-credit-specification \
    --instance-credit-specifications "InstanceId=${instance_id},CpuCredits=${MINNOW_CPU_CREDITS}" \
    --query 'UnsuccessfulInstanceCreditSpecifications[0].Error.Message' --output text) || return 1
  case "$refused" in
    '' | None) log "CPU credits: ${MINNOW_CPU_CREDITS}" ;;
    *) log "EC2 refused the credit mode: ${refused}" && return 1 ;;
  esac
}

if [ -n "${MINNOW_LOG_GROUP:-}" ] && [ -n "${MINNOW_METRICS_LOG_GROUP:-}" ]; then
  setup_cloudwatch_agent ||
    log "warning: the CloudWatch agent is not set up (see above): no memory/disk metrics, broker metrics or shipped logs"
fi
if [ -n "${MINNOW_CPU_CREDITS:-}" ]; then
  set_cpu_credit_mode ||
    log "warning: could not set CPU credits to ${MINNOW_CPU_CREDITS}; the instance stays in its launch mode (unlimited)"
fi
