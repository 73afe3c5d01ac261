// Who may do what on the registry, as Karapace's auth file grants it: entries of a user (or, Sluice's
// addition for OAuth tokens, a group), an operation and a resource pattern. No entry, no access.

export type Operation = "Read" | "Write";

export interface Permission {
  /** The user granted; or */
  username?: string;
  /** the group granted: a bearer token's groups claim names the groups of its principal. */
  group?: string;
  operation: Operation;
  /** Matched from the start of the resource (see `resourcePattern`). */
  resource: RegExp;
}

/** The global compatibility and mode. */
export const CONFIG_RESOURCE = "Config:";

export const subjectResource = (subject: string) => `Subject:${subject}`;

/** A KEK of the DEK registry and its DEKs (Confluent's RBAC binds these to `Kek:<kekName>`). */
export const kekResource = (name: string) => `Kek:${name}`;

/**
 * A permission's resource pattern as Karapace applies it (Python's `re.match`): anchored at the
 * start only, so `Subject:orders` also covers `Subject:orders-value`; a `$` at the end matches whole.
 */
export function resourcePattern(pattern: string): RegExp {
  return new RegExp(`^(?:${pattern})`);
}

/** Whether the entry is `user`'s own or one of its `groups`'. */
export const grantedTo = (p: Permission, user: string, groups: readonly string[]) =>
  p.username !== undefined ? p.username === user : p.group !== undefined && groups.includes(p.group);

/** Whether `user` (in `groups`) may do `operation` on `resource`: Write implies Read. */
export function allows(
  permissions: readonly Permission[],
  user: string,
  operation: Operation,
  resource: string,
  groups: readonly string[] = [],
): boolean {
  return permissions.some(
    (p) => grantedTo(p, user, groups) && (operation === "Read" || p.operation === "Write") && p.resource.test(resource),
  );
}
