import * as crypto from 'node:crypto';
import { CfnWaitCondition, CfnWaitConditionHandle, Duration, Stack } from 'aws-cdk-lib';
import { Construct } from 'constructs';

/**
 * How long a deploy waits for the boot it restarts or replaces the broker with to report. The boot
 * signals as soon as it knows (die's message, a failed command, or the health check's verdict), so
 * this bounds only a boot that never reports (the instance did not start, cloud-init did not run).
 * Its parts on a t3.micro throttled to its 20% baseline: stop/start or a replacement's launch ~2
 * min; dnf Node.js ~3 min; download and npm ci ~3 min, or ~25 min when no prebuilt better-sqlite3
 * matches and it compiles (gcc + SQLite's amalgamation at baseline); a replacement's takeover of the
 * data volume, which stops the instance it replaces, ~1-2 min; broker start and the health check at
 * most 2 min. ~35 min at worst, so 60 min. (The boot no longer waits for the Elastic IP: its
 * association waits for this signal, see broker-instance.ts.)
 */
export const RELEASE_SIGNAL_TIMEOUT = Duration.minutes(60);

/**
 * Everything a boot consumes: when any of it changes, CloudFormation stops/starts or replaces the
 * instance, and that boot gets a wait condition of its own. Values may be tokens (they are hashed
 * resolved, as the template will hold them).
 */
export interface BootIdentity {
  /** The broker asset's hash: the release id on the instance. */
  readonly releaseId: string;
  /** /etc/minnow/install.env but the signal URL (user-data.ts installSettings), which names the handle. */
  readonly installSettings: readonly string[];
  /** install.sh as the user data embeds it. */
  readonly installer: string;
  /** The AMI id (a replacement when it changes). */
  readonly imageId: string;
  /** The instance type (a stop/start when it changes). */
  readonly instanceType: string;
}

export interface ReleaseSignalProps {
  readonly boot: BootIdentity;
}

/**
 * A wait condition per boot identity: the boot sends it one SUCCESS or FAILURE, and a FAILURE fails
 * the deploy (creation or update) with the boot's reason in the stack events ("WaitCondition
 * received failed message: '<reason>' for uniqueId: i-...").
 *
 * Why a wait condition with a handle, not a CreationPolicy on the instance: a CreationPolicy covers
 * only creation (an instance's update has no signal to wait for), and SignalResource carries
 * no reason: the events would say only "FAILURE", where the handle's signal puts the boot's Reason
 * in them. The handle is a presigned URL, so the instance needs no IAM permission to signal.
 *
 * Why the ids carry a hash of the boot identity: CloudFormation can update neither a handle nor a
 * condition, and a condition that already completed never waits again. A new handle and condition
 * per identity change the user data (it carries the handle URL), so every change that restarts or
 * replaces the broker (a release, logLevel, cpuCredits, security, the type, the image) makes the
 * deploy wait for that boot's signal, and a change that does not touch the boot (alarms, log
 * retention, the dashboard) keeps both and restarts nothing. The condition does not depend on the
 * instance: it waits from the start of its turn in the deploy, so a signal never comes before it listens.
 */
export class ReleaseSignal extends Construct {
  /** The presigned URL the boot PUTs its signal to (MINNOW_SIGNAL_URL). */
  readonly url: string;
  readonly condition: CfnWaitCondition;
  /** The first 16 hex digits of the boot identity's hash, in both logical ids. */
  readonly bootHash: string;

  constructor(scope: Construct, id: string, props: ReleaseSignalProps) {
    super(scope, id);
    // Resolved first: a token's string form (${Token[...]}) is numbered in creation order, so it
    // would change with unrelated constructs; its resolved form ({"Ref": "BrokerEip..."}) does not.
    const resolved = JSON.stringify(Stack.of(this).resolve(props.boot));
    this.bootHash = crypto.createHash('sha256').update(resolved).digest('hex').slice(0, 16);
    const handle = new CfnWaitConditionHandle(this, `Handle${this.bootHash}`);
    this.url = handle.ref;
    this.condition = new CfnWaitCondition(this, `Boot${this.bootHash}`, {
      handle: handle.ref,
      timeout: String(RELEASE_SIGNAL_TIMEOUT.toSeconds()),
      count: 1,
    });
  }
}
