// Three dist/sluice registry processes on one schemas topic elect one leader through Kafka; followers
// forward writes to it. Clients register in a loop through all three; the leader is killed (-9); a new
// one is elected; every acknowledged registration is then on every instance with one id, and no id was
// handed out twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtBinary } from "../../fixtures/binary.ts";
import { sharedKafka } from "../../fixtures/kafka.ts";
import { type SluiceProcess, startSluice } from "../../fixtures/sluice-process.ts";
import { freePort, waitFor } from "../../fixtures/wait.ts";

const dir = mkdtempSync(join(tmpdir(), "sluice-sr-failover-"));
const run = Math.random().toString(36).slice(2, 8);
interface Instance {
  url: string;
  proc?: SluiceProcess["proc"];
  log: string;
}
const instances: Instance[] = [];

async function start(i: number, bootstrap: string): Promise<void> {
  const port = freePort();
  const inst: Instance = { url: `http://127.0.0.1:${port}`, log: join(dir, `sr-${i}.log`) };
  instances[i] = inst;
  const sluice = await startSluice(
    [
      "registry",
      "--bootstrap-servers",
      bootstrap,
      "--listeners",
      inst.url,
      "--host.name=127.0.0.1",
      `--kafkastore.topic=_schemas-${run}`,
      "--kafkastore.topic.replication.factor=1",
      `--schema.registry.group.id=sr-${run}`,
      "--kafkagroup.session.timeout.ms=6000",
      "--kafkagroup.heartbeat.interval.ms=1000",
    ],
    { cwd: dir, readyUrl: inst.url, env: { SLUICE_LOG_LEVEL: "info" }, log: inst.log },
  );
  inst.proc = sluice.proc;
}

/** The instance whose log says it leads now. */
function leader(): number {
  const leads = instances.map((inst) => {
    const lines = readFileSync(inst.log, "utf8")
      .split("\n")
      .filter((l) => l.includes('"leader elected"') || l.includes('"this instance is the leader"'));
    return inst.proc !== undefined && (lines.at(-1)?.includes('"this instance is the leader"') ?? false);
  });
  const index = leads.indexOf(true);
  if (index < 0) throw new Error("no leader in the logs");
  return index;
}

beforeAll(async () => {
  const { bootstrap } = await sharedKafka();
  builtBinary();
  await Promise.all([0, 1, 2].map((i) => start(i, bootstrap)));
}, 120_000);
afterAll(() => {
  for (const inst of instances) inst.proc?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const schema = (n: number) =>
  JSON.stringify({ type: "record", name: `R${n}`, fields: [{ name: `f${n}`, type: "string" }] });

async function register(url: string, n: number): Promise<{ status: number; id?: number; code?: number }> {
  try {
    const r = await fetch(`${url}/subjects/failover-${n}/versions`, {
      method: "POST",
      headers: { "content-type": "application/vnd.schemaregistry.v1+json" },
      body: JSON.stringify({ schema: schema(n) }),
    });
    const body = (await r.json()) as { id?: number; error_code?: number };
    return { status: r.status, id: body.id, code: body.error_code };
  } catch {
    return { status: 0 }; // connection refused: the killed instance
  }
}

test("kill -9 of the leader: a new one is elected, and every acknowledged registration survives with one id", async () => {
  await waitFor("a leader", () => {
    try {
      return leader() >= 0;
    } catch {
      return false;
    }
  });
  const acked = new Map<number, number>(); // schema number → id
  const failures: { status: number; code?: number }[] = [];
  let n = 0;
  const loop = async (count: number, live: () => Instance[]) => {
    for (let done = 0; done < count; ) {
      const targets = live();
      const r = await register(targets[n % targets.length]!.url, n);
      if (r.status === 200 && r.id !== undefined) {
        acked.set(n, r.id);
        done++;
      } else failures.push({ status: r.status, code: r.code });
      n++;
    }
  };
  // Through all three: followers forward to the leader.
  await loop(60, () => instances);
  expect(failures).toEqual([]);
  const old = leader();
  const killedAt = Date.now();
  instances[old]!.proc!.kill("SIGKILL");
  await instances[old]!.proc!.exited;
  instances[old]!.proc = undefined;
  // Clients keep going through all three; the dead one refuses connections, the others answer 50003/50004
  // until the group has elected another leader.
  const firstBefore = failures.length;
  await loop(60, () => instances);
  const newLeader = leader();
  expect(newLeader).not.toBe(old);
  const gap = failures.slice(firstBefore);
  console.log(
    `leader killed: new leader after ≤ ${Date.now() - killedAt} ms; ${gap.length} failed requests meanwhile (${gap.filter((f) => f.status === 0).length} to the dead instance, ${gap.filter((f) => f.code === 50003).length} × 50003, ${gap.filter((f) => f.code === 50004).length} × 50004)`,
  );
  for (const f of gap) expect([0, 50003, 50004]).toContain(f.status === 0 ? 0 : f.code!);

  // Every acknowledged registration, on every live instance, with the id it was acknowledged with.
  const ids = [...acked.values()];
  expect(new Set(ids).size).toBe(ids.length);
  for (const inst of instances.filter((i) => i.proc)) {
    await waitFor(
      `${inst.url} to have every registration`,
      async () => {
        for (const [k, id] of acked) {
          const r = await fetch(`${inst.url}/subjects/failover-${k}/versions/1`);
          if (r.status !== 200) return false;
          const v = (await r.json()) as { id: number; schema: string };
          expect(v.id).toBe(id);
          expect(v.schema).toBe(schema(k));
        }
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  }
}, 180_000);
