// Slot hygiene side by side with Debezium 3.7 in Apache Kafka Connect 4.1.1, on one PostgreSQL: the
// same connector deleted through REST on both sides leaves the same replication slots. Without
// slot.drop.on.stop both slots survive the delete (Sluice then warns once, with the SQL that drops
// it: Debezium says nothing); with slot.drop.on.stop=true both are gone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SIDES, sideName, startSideBySide, type Side, type SideBySide } from "../fixtures/cdc-side-by-side.ts";
import { captureLogs, logLines } from "../fixtures/logs.ts";
import { waitFor } from "../fixtures/wait.ts";

describe("PostgreSQL CDC slot hygiene: Sluice's connector leaves what Debezium's leaves", () => {
  let sides: SideBySide;
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(async () => {
    sides = await startSideBySide({ prepare: (pg) => pg.psql("CREATE TABLE slotted (id int PRIMARY KEY)") });
    logs = captureLogs();
  }, 240_000);
  afterAll(async () => {
    logs?.stop();
    await sides?.stop();
  }, 60_000);

  const slot = (side: Side, label: string) =>
    sides.pg.psql(`SELECT active FROM pg_replication_slots WHERE slot_name = '${sideName(side, label)}'`);
  const sluiceWarnings = (label: string) =>
    logLines(logs.text()).filter(
      (l) => l.level === "warn" && l.logger === "postgres-cdc" && l.slot === sideName("sluice", label),
    );

  /** Creates the connector on both sides, waits until both stream from their slots, then deletes both. */
  const createAndDelete = async (label: string, settings: Record<string, string>) => {
    await sides.createBoth(label, { "table.include.list": "public.slotted", ...settings });
    for (const side of SIDES) {
      await sides.api(side).waitForState(sideName(side, label), "RUNNING", 1);
      await waitFor(`${side}'s slot in use`, () => slot(side, label) === "t" || undefined, { timeoutMs: 60_000 });
    }
    for (const side of SIDES)
      expect((await sides.api(side).delete(`/connectors/${sideName(side, label)}`)).status).toBe(204);
  };

  test("without slot.drop.on.stop both slots survive the delete; Sluice warns once with the SQL", async () => {
    const label = "kept";
    await createAndDelete(label, {});
    // Once both tasks have let go of them (walsenders gone), both slots are still there.
    for (const side of SIDES)
      await waitFor(`${side}'s slot let go`, () => slot(side, label) === "f" || undefined, { timeoutMs: 60_000 });
    expect(SIDES.map((side) => slot(side, label))).toEqual(["f", "f"]);
    const warnings = await waitFor("Sluice's warning", () => {
      const found = sluiceWarnings(label);
      return found.length > 0 ? found : undefined;
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.sql).toBe(`SELECT pg_drop_replication_slot('slc_kept'); DROP PUBLICATION "slc_kept_pub";`);
    for (const side of SIDES) sides.pg.psql(`SELECT pg_drop_replication_slot('${sideName(side, label)}')`);
  }, 180_000);

  test("with slot.drop.on.stop=true both slots are gone after the delete, and Sluice warns nothing", async () => {
    const label = "dropped";
    await createAndDelete(label, { "slot.drop.on.stop": "true" });
    for (const side of SIDES)
      await waitFor(`${side}'s slot dropped`, () => slot(side, label) === "" || undefined, { timeoutMs: 60_000 });
    expect(sluiceWarnings(label)).toEqual([]);
  }, 180_000);
});
