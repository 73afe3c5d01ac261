// Karapace's auth file (its `registry_authfile`), so one file serves both registries: JSON with
// `users` (username, algorithm, salt, password_hash) and `permissions` (username, operation
// Read|Write, resource `Config:` or `Subject:<regex>`). A permission may name a `group` instead of a
// username (Sluice's): the groups of an OAuth token's principal.
import { pbkdf2, scrypt, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import type { User } from "../platform/basic-auth.ts";
import { ConfigError } from "../platform/settings.ts";
import { resourcePattern, type Operation, type Permission } from "./permissions.ts";

const ALGORITHMS = ["sha1", "sha256", "sha512", "scrypt"] as const;
type Algorithm = (typeof ALGORITHMS)[number];

/** A user of the file: `credential` is its base64 password_hash; no roles (permissions say it all). */
export interface HashedUser extends User {
  algorithm: Algorithm;
  salt: string;
}

export interface AuthFile {
  users: Map<string, HashedUser>;
  permissions: Permission[];
}

const pbkdf2Async = promisify(pbkdf2);
const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: string,
  length: number,
  options: { N: number; r: number; p: number },
) => Promise<Buffer>;

/** Karapace's hashes: PBKDF2-HMAC with 5000 rounds (key as long as the digest), or scrypt N=16384 r=8 p=1 (64 bytes). */
async function hashPassword(algorithm: Algorithm, salt: string, password: string): Promise<Buffer> {
  if (algorithm === "scrypt") return scryptAsync(password, salt, 64, { N: 16384, r: 8, p: 1 });
  const length = { sha1: 20, sha256: 32, sha512: 64 }[algorithm];
  return pbkdf2Async(password, salt, 5000, length, algorithm);
}

export async function verifyHashedPassword(user: HashedUser, password: string): Promise<boolean> {
  const expected = Buffer.from(user.credential, "base64");
  const actual = await hashPassword(user.algorithm, user.salt, password);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses the file's text; `refuse` builds the error naming what is wrong. */
export function parseAuthFile(text: string, refuse: (problem: string) => Error): AuthFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw refuse(`not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!isRecord(data) || !Array.isArray(data.users) || !Array.isArray(data.permissions))
    throw refuse('expected {"users": [...], "permissions": [...]}');
  const users = new Map<string, HashedUser>();
  data.users.forEach((u: unknown, i) => {
    if (
      !isRecord(u) ||
      typeof u.username !== "string" ||
      typeof u.salt !== "string" ||
      typeof u.password_hash !== "string"
    )
      throw refuse(`users[${i}] needs string username, salt and password_hash`);
    if (!ALGORITHMS.includes(u.algorithm as Algorithm))
      throw refuse(`users[${i}].algorithm must be one of ${ALGORITHMS.join(", ")}`);
    users.set(u.username, {
      credential: u.password_hash,
      roles: [],
      algorithm: u.algorithm as Algorithm,
      salt: u.salt,
    });
  });
  const permissions = data.permissions.map((p: unknown, i): Permission => {
    if (
      !isRecord(p) ||
      (typeof p.username === "string") === (typeof p.group === "string") ||
      typeof p.resource !== "string"
    ) {
      throw refuse(`permissions[${i}] needs a string resource and a string username or group (one of them)`);
    }
    if (p.operation !== "Read" && p.operation !== "Write")
      throw refuse(`permissions[${i}].operation must be Read or Write`);
    const grantee = typeof p.username === "string" ? { username: p.username } : { group: p.group as string };
    try {
      return { ...grantee, operation: p.operation as Operation, resource: resourcePattern(p.resource) };
    } catch (err) {
      throw refuse(
        `permissions[${i}].resource is not a regular expression (${err instanceof Error ? err.message : String(err)})`,
      );
    }
  });
  if (users.size === 0) throw refuse("the file has no users");
  return { users, permissions };
}

export function loadAuthFile(path: string, setting: string): AuthFile {
  const refuse = (problem: string) => new ConfigError(setting, path, problem);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw refuse(`cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseAuthFile(text, refuse);
}
