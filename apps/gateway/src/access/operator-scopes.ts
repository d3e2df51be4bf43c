/** Operator scopes, the closed set of OpenClaw's gateway protocol. */
const operatorScopes = [
  'operator.read',
  'operator.write',
  'operator.admin',
  'operator.approvals',
  'operator.questions',
  'operator.pairing',
  'operator.talk',
  'operator.talk.secrets',
] as const;

export type OperatorScope = (typeof operatorScopes)[number];

const known: ReadonlySet<string> = new Set(operatorScopes);

/**
 * The scopes a socket holds, given what it asked for. Unknown names are dropped. `admin`
 * implies every scope, `write` implies `read` and `talk`, as in OpenClaw. A client that
 * asks for nothing gets read and write.
 */
export function grantScopes(requested: readonly string[] | undefined): ReadonlySet<OperatorScope> {
  const granted = new Set<OperatorScope>();
  const asked =
    requested === undefined || requested.length === 0 ? ['operator.read', 'operator.write'] : requested;
  for (const scope of asked) {
    if (!known.has(scope)) continue;
    if (scope === 'operator.admin') {
      for (const every of operatorScopes) granted.add(every);
    } else if (scope === 'operator.write') {
      granted.add('operator.write');
      granted.add('operator.read');
      granted.add('operator.talk');
    } else {
      granted.add(scope as OperatorScope);
    }
  }
  return granted;
}
