// Who may do what beyond the ACLs (server/authorizer.ts).
import { bool, Setting } from './setting';

export interface AuthorizationSettings {
  /** Principals allowed everything, ACLs or not (super.users), as `User:NAME` strings. */
  superUsers: string[];
  /**
   * A resource no ACL names is open to all (allow.everyone.if.no.acl.found); undefined: decided from
   * the listeners (server/authorizer-defaults.ts).
   */
  allowEveryoneIfNoAclFound: boolean | undefined;
}

export const AUTHORIZATION_SETTINGS = [
  // Authorization (issue 13, server/authorizer.ts), Kafka's StandardAuthorizer settings.
  {
    key: 'superUsers',
    env: 'SUPER_USERS',
    flag: 'super-users',
    doc: 'principals allowed every operation whatever the ACLs say, separated by ; (super.users)',
    default: '',
    expected: 'TYPE:NAME entries separated by ;, e.g. User:admin;User:ops',
    parse: parseSuperUsers,
  },
  {
    key: 'allowEveryoneIfNoAclFound',
    env: 'ALLOW_EVERYONE_IF_NO_ACL_FOUND',
    flag: 'allow-everyone-if-no-acl-found',
    doc: 'a resource no ACL names is open to every principal (allow.everyone.if.no.acl.found); default: true while no listener authenticates anyone (no sasl+ listener, TLS_CLIENT_AUTH not required), else false',
    default: undefined,
    expected: 'true|false',
    parse: bool,
  },
] as const satisfies readonly Setting<AuthorizationSettings>[];

/** `User:admin;User:ops` -> ['User:admin', 'User:ops'] (Kafka splits super.users on ;). */
function parseSuperUsers(v: string): string[] | undefined {
  const entries = v
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  return entries.every((e) => /^[^:\s]+:.+$/.test(e)) ? entries : undefined;
}
