// Who may do what on the registry, as Karapace's auth file grants it: entries of a user, an
// operation and a resource pattern. No entry, no access.

export type Operation = "Read" | "Write";

export interface Permission {
  username: string;
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

/** Whether `user` may do `operation` on `resource`: Write implies Read. */
export function allows(permissions: readonly Permission[], user: string, operation: Operation, resource: string): boolean {
  return permissions.some((p) => p.username === user && (operation === "Read" || p.operation === "Write") && p.resource.test(resource));
}
