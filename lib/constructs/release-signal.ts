import { CfnWaitCondition, CfnWaitConditionHandle, Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';

/**
 * How long a deploy waits for the boot that installs a release to report. The boot signals as soon
 * as it knows (die's message, a failed command, or the health check's verdict), so this bounds only
 * a boot that never reports (the instance did not start, cloud-init did not run). Its parts on a
 * t3.micro throttled to its 20% baseline: stop/start ~2 min; dnf Node.js ~3 min; download and npm
 * ci ~3 min, or ~25 min when no prebuilt better-sqlite3 matches and it compiles (gcc + SQLite's
 * amalgamation at baseline); a replacement's takeover of the data volume (the previous instance's
 * stop, detach, attach: deploy/take-volume.sh) ~2 min; broker start and the health check at most
 * 2 min. ~35 min at worst, so 60 min.
 */
export const RELEASE_SIGNAL_TIMEOUT = Duration.minutes(60);

export interface ReleaseSignalProps {
  /** The broker asset's hash: the release id on the instance. */
  readonly releaseId: string;
}

/**
 * A wait condition per broker release: the boot that installs the release sends it one SUCCESS or
 * FAILURE, and a FAILURE fails the deploy (creation or update) with the boot's reason in the stack
 * events ("WaitCondition received failed message: '<reason>' for uniqueId: i-...").
 *
 * Why a wait condition with a handle, not a CreationPolicy on the instance: a CreationPolicy covers
 * only creation, SignalResource carries no reason (the events would say only "FAILURE"), and the
 * instance would stay CREATE_IN_PROGRESS, holding back the Elastic IP association the boot waits
 * for. A new handle and condition per release (their ids carry its hash) make every deploy that
 * changes the broker wait for its own boot; the handle is a presigned URL, so the instance needs no
 * IAM permission to signal. The condition does not depend on the instance: it waits from the start
 * of the deploy, so a signal can never come before it listens.
 */
export class ReleaseSignal extends Construct {
  /** The presigned URL the boot PUTs its signal to (MINNOW_SIGNAL_URL). */
  readonly url: string;
  readonly condition: CfnWaitCondition;

  constructor(scope: Construct, id: string, props: ReleaseSignalProps) {
    super(scope, id);
    const release = props.releaseId.slice(0, 16);
    const handle = new CfnWaitConditionHandle(this, `Handle${release}`);
    this.url = handle.ref;
    this.condition = new CfnWaitCondition(this, `Boot${release}`, {
      handle: handle.ref,
      timeout: String(RELEASE_SIGNAL_TIMEOUT.toSeconds()),
      count: 1,
    });
  }
}
