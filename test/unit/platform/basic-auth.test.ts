// Users files in the originals' formats, stored credential forms, JAAS lookup and the guard's answers.
import { describe, expect, test } from "bun:test";
import { basicAuthGuard, jaasUsersFile, parseUsers, verifyPassword } from "#src/platform/basic-auth.ts";

describe("verifyPassword", () => {
  // Vectors from Jetty's Password tool documentation and crypt(3).
  test.each([
    ["secret", "secret"],
    ["OBF:1yta1t331v8w1v9q1t331ytc", "secret"],
    ["OBF:1vny1zlo1x8e1vnw1vn61x8g1zlu1vn4", "storepwd"],
    ["MD5:5eBe2294EcD0E0F08eAb7690D2A6Ee69", "secret"],
    ["CRYPT:arlEKn0OzVJn.", "foob"],
  ])("%s matches its password and nothing else", async (credential, password) => {
    expect(await verifyPassword(credential, password)).toBe(true);
    expect(await verifyPassword(credential, `${password}x`)).toBe(false);
    expect(await verifyPassword(credential, "")).toBe(false);
  });

  test("bcrypt and argon2 hashes", async () => {
    for (const hash of [
      await Bun.password.hash("pw", { algorithm: "bcrypt", cost: 4 }),
      await Bun.password.hash("pw"),
    ]) {
      expect(await verifyPassword(hash, "pw")).toBe(true);
      expect(await verifyPassword(hash, "pW")).toBe(false);
    }
  });
});

test("users files: Jetty's roles after the password, Kafka Connect's whole value as the password", () => {
  const text = "# comment\nalice: MD5:5ebe2294ecd0e0f08eab7690d2a6ee69, admin, developer\nbob=pa,ss\n";
  expect(parseUsers(text, true).get("alice")).toEqual({
    credential: "MD5:5ebe2294ecd0e0f08eab7690d2a6ee69",
    roles: ["admin", "developer"],
  });
  expect(parseUsers(text, true).get("bob")).toEqual({ credential: "pa", roles: ["ss"] });
  expect(parseUsers(text, false).get("bob")).toEqual({ credential: "pa,ss", roles: [] });
});

test("the users file of a JAAS section", () => {
  const jaas = `// Confluent's example
SchemaRegistry-Props {
  org.eclipse.jetty.jaas.spi.PropertyFileLoginModule required
  file="/etc/sr/password-file"
  debug="false";
};
KafkaConnect {
  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required
  file = "/etc/connect/users.properties";
};`;
  expect(jaasUsersFile(jaas, "SchemaRegistry-Props")).toBe("/etc/sr/password-file");
  expect(jaasUsersFile(jaas, "KafkaConnect")).toBe("/etc/connect/users.properties");
  expect(jaasUsersFile(jaas, "Other")).toBeUndefined();
});

describe("basicAuthGuard", () => {
  const guard = basicAuthGuard({
    realm: "Test",
    users: parseUsers("alice: secret,admin\nbob: secret,reader\n", true),
    roles: ["admin"],
    skipPaths: ["/", "/open/*"],
    refuse: (_request, status, headers) => new Response(null, { status, headers }),
  });
  const call = (path: string, authorization?: string) =>
    guard(new Request(`http://localhost${path}`, authorization ? { headers: { authorization } } : {}));
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

  test("lets the right credentials through", async () => {
    expect(await call("/subjects", basic("alice", "secret"))).toBeUndefined();
    // Remembered after the first check; still checked against the password.
    expect(await call("/subjects", basic("alice", "secret"))).toBeUndefined();
  });

  test("401 with a challenge for missing, malformed or wrong credentials", async () => {
    for (const header of [
      undefined,
      "Bearer x",
      "Basic !!!",
      basic("alice", "wrong"),
      basic("nobody", "secret"),
      `Basic ${Buffer.from("alice").toString("base64")}`,
    ]) {
      const response = await call("/subjects", header);
      expect(response?.status).toBe(401);
      expect(response?.headers.get("www-authenticate")).toBe('Basic realm="Test"');
    }
  });

  test("403 for a user without one of the roles", async () => {
    expect((await call("/subjects", basic("bob", "secret")))?.status).toBe(403);
  });

  test("skip paths: exact and prefix specs", async () => {
    expect(await call("/")).toBeUndefined();
    expect(await call("/open")).toBeUndefined();
    expect(await call("/open/a/b")).toBeUndefined();
    expect((await call("/opened"))?.status).toBe(401);
  });
});
