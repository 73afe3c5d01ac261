// Karapace's auth file: its password hashes (vectors computed with Python's hashlib, as Karapace
// hashes) and what a malformed file is refused for.
import { describe, expect, test } from "bun:test";
import { parseAuthFile, verifyHashedPassword, type HashedUser } from "#src/registry/auth-file.ts";

const SALT = "salt123";
const PASSWORD = "pw-Secret";
const VECTORS = {
  sha1: "3NJN3E9t5dHtZ1c/IpnkKoJVigg=",
  sha256: "rWr3BgetdqvVkyK3UZcVELK4E5LLGmTprSAe0a0i4TQ=",
  sha512: "5JbEMc1IaHCsOOXzurs3rN5f19EvmEwua0xgcmQv7nQFA5u3aaXBl+NGX/BBXgThfrbSjHGOnHGT+DBzktTZZA==",
  scrypt: "sE6Bu+4pl+byJyfVRg7Mt6V7RI4atXAYKivih2tgrXYUE97TAlA0m2HfO9jvgmxDggQdcHCIDzd7M4jsyDKT9Q==",
} as const;

describe("verifyHashedPassword", () => {
  test.each(Object.entries(VECTORS))("%s matches Karapace's hash and nothing else", async (algorithm, hash) => {
    const user: HashedUser = {
      credential: hash,
      roles: [],
      algorithm: algorithm as HashedUser["algorithm"],
      salt: SALT,
    };
    expect(await verifyHashedPassword(user, PASSWORD)).toBe(true);
    expect(await verifyHashedPassword(user, `${PASSWORD}x`)).toBe(false);
    expect(await verifyHashedPassword({ ...user, salt: "other" }, PASSWORD)).toBe(false);
  });
});

describe("parseAuthFile", () => {
  const refuse = (problem: string) => new Error(problem);
  const file = (users: unknown[], permissions: unknown[]) => JSON.stringify({ users, permissions });
  const alice = { username: "alice", algorithm: "sha512", salt: SALT, password_hash: VECTORS.sha512 };

  test("users and permissions of Karapace's example shape", () => {
    const parsed = parseAuthFile(
      file([alice], [{ username: "alice", operation: "Write", resource: "Subject:orders-.*" }]),
      refuse,
    );
    expect(parsed.users.get("alice")).toEqual({
      credential: VECTORS.sha512,
      roles: [],
      algorithm: "sha512",
      salt: SALT,
    });
    expect(parsed.permissions).toHaveLength(1);
    expect(parsed.permissions[0]!.resource.test("Subject:orders-value")).toBe(true);
  });

  test("a permission may name a group instead of a user (a bearer token's groups)", () => {
    const parsed = parseAuthFile(
      file([alice], [{ group: "schema-admins", operation: "Write", resource: "Config:" }]),
      refuse,
    );
    expect(parsed.permissions[0]).toMatchObject({ group: "schema-admins", operation: "Write" });
    expect(parsed.permissions[0]!.username).toBeUndefined();
  });

  test.each([
    ["not JSON", "{", "not JSON"],
    [
      "a permission of both a user and a group",
      file([alice], [{ username: "alice", group: "g", operation: "Read", resource: "Config:" }]),
      "permissions[0] needs a string resource and a string username or group (one of them)",
    ],
    ["a permission of nobody", file([alice], [{ operation: "Read", resource: "Config:" }]), "permissions[0] needs"],
    ["no arrays", "{}", '{"users": [...], "permissions": [...]}'],
    ["no users", file([], []), "no users"],
    ["a user without a hash", file([{ username: "a", algorithm: "sha1", salt: "s" }], []), "users[0] needs"],
    [
      "an unknown algorithm",
      file([{ ...alice, algorithm: "md5" }], []),
      "users[0].algorithm must be one of sha1, sha256, sha512, scrypt",
    ],
    [
      "an unknown operation",
      file([alice], [{ username: "alice", operation: "Delete", resource: "Config:" }]),
      "permissions[0].operation must be Read or Write",
    ],
    [
      "a bad pattern",
      file([alice], [{ username: "alice", operation: "Read", resource: "Subject:(" }]),
      "permissions[0].resource is not a regular expression",
    ],
  ])("refuses %s", (_name, text, problem) => {
    expect(() => parseAuthFile(text, refuse)).toThrow(problem);
  });
});
