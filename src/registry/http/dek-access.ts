// Who may use the DEK registry, with Karapace-style permissions. Confluent's RBAC binds the DEK
// registry to KEKs (`Kek:<kekName>`; DEKs have no binding of their own), and a DEK belongs to a
// subject, whose data it decrypts. So:
// - a KEK route needs `Kek:<name>`: Read for GETs, Write for creating, changing, deleting, testing;
// - a DEK route needs that and Read on `Subject:<subject>` too: whoever may not read a subject gets
//   none of its keys (a shared KEK's DEK is answered with its raw key material);
// - lists need nothing of their own and show only what the user may read (KEKs by `Kek:`, a KEK's
//   DEK subjects by `Subject:`); creating a KEK needs Write on `Kek:<name>` of the name in the body,
//   and the deprecated POST /keks/{name}/deks Read on the body's subject: ./dek-routes.ts checks those.
import { kekResource, subjectResource, type Operation } from "../permissions.ts";

export const DEK_ROUTES = "/dek-registry/";

export function dekPermissions(
  method: string,
  _route: string,
  params: Record<string, string> | undefined,
): { operation: Operation; resource: string }[] {
  if (params?.name === undefined) return [];
  const operation: Operation = method === "GET" || method === "HEAD" ? "Read" : "Write";
  const needs = [{ operation, resource: kekResource(params.name) }];
  if (params.subject !== undefined) needs.push({ operation: "Read", resource: subjectResource(params.subject) });
  return needs;
}
