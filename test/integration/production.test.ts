// The production set-up of docs/production.md, run as written: its registry.properties, worker.properties
// and users files (taken from the page itself) for three dist/sluice registries and three dist/sluice connect
// workers on one machine — `<this-host>` → 127.0.0.1, `<kafka>` → the test broker, /etc/sluice → a temp
// dir, each instance on its own port, names made unique to this run. Everything over HTTPS with Basic
// authentication: writes forwarded between instances, and the workers' Avro converters registering
// their schemas with the registries' credentials.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "../fixtures/binary.ts";
import { certificateAuthority } from "../fixtures/certificates.ts";
import { sharedKafka } from "../fixtures/kafka.ts";
import { type SluiceProcess, startSluice } from "../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-production-"));
const etc = join(dir, "etc");
const run = Math.random().toString(36).slice(2, 8);
const ca = certificateAuthority("Sluice test CA");
const started: SluiceProcess[] = [];
const registries: string[] = [];
const workers: string[] = [];
const tls = { ca: ca.cert };

/** The code block of docs/production.md that follows the line naming `file`. */
function docBlock(file: string): string {
  const page = readFileSync(join(root, "docs", "production.md"), "utf8");
  const section = page.slice(page.indexOf("## Production set-up"));
  const at = section.indexOf(`\`${file}\``);
  if (at < 0) throw new Error(`docs/production.md: no ${file} in the production set-up`);
  const block = /```properties\n([\s\S]*?)```/.exec(section.slice(at))!;
  return block[1]!;
}

/** The page's file with this machine's names, paths and `port`, and names unique to this run. */
function localized(text: string, port: number, bootstrap: string): string {
  return text
    .replaceAll("<this-host>", "127.0.0.1")
    .replaceAll("<kafka>", bootstrap)
    .replaceAll("/etc/sluice", etc)
    .replace(/^listeners=https:\/\/0\.0\.0\.0:\d+$/m, `listeners=https://127.0.0.1:${port}`)
    .replace(
      /^value\.converter\.schema\.registry\.url=.*$/m,
      `value.converter.schema.registry.url=${registries.join(",")}`,
    )
    .replace(/^(kafkastore\.topic)=(.*)$/m, `$1=$2-${run}`)
    .replace(
      /^(schema\.registry\.group\.id|group\.id|config\.storage\.topic|offset\.storage\.topic|status\.storage\.topic)=(.*)$/gm,
      `$1=${run}-$2`,
    );
}

/** Starts an instance, logging to `log`, and waits until `url` answers at all (over HTTPS, with the test CA). */
async function start(args: string[], url: string, log: string): Promise<void> {
  const env = { SLUICE_LOG_LEVEL: "info" };
  started.push(
    await startSluice(args, { cwd: dir, readyUrl: url, answered: () => true, tls, env, log, timeoutMs: 60_000 }),
  );
}

/** Every start settled before going on: one failing must not leave another starting after afterAll. */
async function all(starts: Promise<void>[]): Promise<void> {
  for (const start of await Promise.allSettled(starts)) if (start.status === "rejected") throw start.reason;
}

const basic = (user: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
});

beforeAll(async () => {
  const { bootstrap } = await sharedKafka();
  mkdirSync(etc);
  mkdirSync(join(dir, "plugins"));
  copyFileSync(join(root, "plugins", "sequence-source.ts"), join(dir, "plugins", "sequence-source.ts"));
  const server = ca.issue("127.0.0.1", "server");
  writeFileSync(join(etc, "server.pem"), server.key + server.cert);
  writeFileSync(join(etc, "ca.pem"), ca.cert);
  writeFileSync(join(etc, "registry-users"), docBlock("/etc/sluice/registry-users"));
  writeFileSync(join(etc, "connect-users.properties"), docBlock("/etc/sluice/connect-users.properties"));
  const registryPorts = [freePort(), freePort(), freePort()];
  registries.push(...registryPorts.map((p) => `https://127.0.0.1:${p}`));
  await all(
    registryPorts.map(async (port, i) => {
      const file = join(etc, `registry-${i}.properties`);
      writeFileSync(file, localized(docBlock("registry.properties"), port, bootstrap));
      await start(["registry", file], registries[i]!, join(dir, `registry-${i}.log`));
    }),
  );
  const workerPorts = [freePort(), freePort(), freePort()];
  workers.push(...workerPorts.map((p) => `https://127.0.0.1:${p}`));
  await all(
    workerPorts.map(async (port, i) => {
      const file = join(etc, `worker-${i}.properties`);
      writeFileSync(file, localized(docBlock("worker.properties"), port, bootstrap));
      await start(["connect-distributed", file], workers[i]!, join(dir, `worker-${i}.log`));
    }),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

test("the production set-up of docs/production.md: three registries and three workers over HTTPS with Basic authentication", async () => {
  const admin = basic("admin", "admin-secret");
  const operator = basic("operator", "operator-secret");
  // GET / stays open; anything else needs credentials, and wrong ones are refused.
  expect((await fetch(`${registries[0]}/`, { tls })).status).toBe(200);
  expect((await fetch(`${registries[0]}/subjects`, { tls })).status).toBe(401);
  expect((await fetch(`${registries[0]}/subjects`, { tls, headers: basic("admin", "wrong") })).status).toBe(401);
  expect((await fetch(`${workers[0]}/connectors`, { tls })).status).toBe(401);

  // A registration through every instance: followers forward it to the leader over HTTPS.
  for (const [i, url] of registries.entries()) {
    const r = await waitFor(
      `a registration through registry ${i}`,
      async () => {
        const res = await fetch(`${url}/subjects/prod-${i}-value/versions`, {
          method: "POST",
          tls,
          headers: { ...admin, "content-type": "application/json" },
          body: JSON.stringify({ schema: `{"type":"record","name":"P${i}","fields":[]}` }),
        });
        return res.status === 200 ? ((await res.json()) as { id: number }) : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(r.id).toBeGreaterThan(0);
  }

  // A connector created through any worker; its Avro converter registers the value schema over HTTPS
  // with the workers' own registry credentials.
  const topic = `${run}-numbers`;
  const created = await waitFor(
    "the connector created through worker 2",
    async () => {
      const res = await fetch(`${workers[2]}/connectors`, {
        method: "POST",
        tls,
        headers: { ...operator, "content-type": "application/json" },
        body: JSON.stringify({
          name: "numbers",
          config: { "connector.class": "SequenceSource", topic, "sequence.max": "10" },
        }),
      });
      return res.status === 201 || undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(created).toBe(true);
  const latest = await waitFor(
    "the converter's schema in the registry",
    async () => {
      const res = await fetch(`${registries[1]}/subjects/${topic}-value/versions/latest`, { tls, headers: admin });
      return res.status === 200 ? ((await res.json()) as { schema: string }) : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  expect(latest.schema).toBe('"long"');
  const status = await waitFor(
    "the connector RUNNING",
    async () => {
      const res = await fetch(`${workers[0]}/connectors/numbers/status`, { tls, headers: operator });
      const body =
        res.status === 200
          ? ((await res.json()) as { connector: { state: string }; tasks: { state: string }[] })
          : undefined;
      return body?.connector.state === "RUNNING" && body.tasks[0]?.state === "RUNNING" ? body : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  expect(status.tasks).toHaveLength(1);
}, 180_000);
