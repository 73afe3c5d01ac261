// Column types beyond the core ones (money, network addresses, ranges, extension types), side by side
// with Debezium's PostgresConnector (see postgres-cdc-debezium.test.ts for the set-up and what is
// normalized): one table with a column of each, NULLs and edge values, read by the snapshot and then
// streamed (insert, update, delete). Both sides must emit the same records, schemas included, under
// each decimal.handling.mode for money.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  differences,
  type Event,
  type Json,
  normalizeChange,
  type Side,
  type SideBySide,
  SIDES,
  sideName,
  startSideBySide,
} from "../fixtures/cdc-side-by-side.ts";
import { DEBEZIUM_VERSION } from "../fixtures/debezium.ts";

const COLUMNS = [
  "id int PRIMARY KEY",
  "cash money",
  "ip inet",
  "net cidr",
  "mac macaddr",
  "mac8 macaddr8",
  "ci citext",
  "path ltree",
  "r4 int4range",
  "r8 int8range",
  "rn numrange",
  "rts tsrange",
  "rtz tstzrange",
  "rd daterange",
  "b1 bit(1)",
  "b8 bit(8)",
  "vb varbit",
  "tv tsvector",
  "pt point",
  "hs hstore",
];
const NAMES = COLUMNS.map((c) => c.split(" ")[0]).join(", ");
const nulls = (id: number) =>
  `(${id}, ${COLUMNS.slice(1)
    .map(() => "NULL")
    .join(", ")})`;
/** The values given, NULL for the columns after them. */
const row = (values: string[]) => `(${[...values, ...Array(COLUMNS.length - values.length).fill("NULL")].join(", ")})`;
const ROWS = [
  row([
    "1",
    "'1234.56'",
    "'192.168.1.10/24'",
    "'10.0.0.0/8'",
    "'08:00:2b:01:02:03'",
    "'08:00:2b:01:02:03:04:05'",
    "'MiXeD Case'",
    "'Top.Science.Astronomy'",
    "'[1,10)'",
    "'(,5]'",
    "'[1.5,2.25]'",
    "'[2024-01-01 10:00,2024-01-02 00:00)'",
    "'[2024-01-01 10:00+02,2024-01-02 00:00+00)'",
    "'[2024-01-01,2024-02-01)'",
    "B'1'",
    "B'10100001'",
    "B'1010000111'",
    "'a fat cat sat on the mat:3B'",
    "'(1.5,-2)'",
    `'a=>1, b=>NULL, "c d"=>"x\\"y", zz=>2, k10=>3, "ü"=>"ß☃"'`,
  ]),
  nulls(2),
  row([
    "3",
    "'-92233720368547758.08'",
    "'::ffff:1.2.3.4'",
    "'2001:db8::/32'",
    "'ff:ff:ff:ff:ff:ff'",
    "'00:00:00:00:00:00:00:00'",
    "''",
    "''",
    "'empty'",
    "'[-9223372036854775808,9223372036854775807)'",
    "'(-infinity,infinity)'",
    "'[-infinity,infinity]'",
    "'empty'",
    "'[,)'",
    "B'0'",
    "B'00000000'",
    "B''",
    "''",
    "'(0,0)'",
    "''",
  ]),
  row([
    "4",
    "'92233720368547758.07'",
    "'0.0.0.0'",
    "'0.0.0.0/0'",
    "'01-23-45-67-89-ab'",
    "'0123456789abcdef'",
    "'Ünïcödé ☃'",
    "'a'",
    "'[0,1]'",
    "'[0,0]'",
    "'(0.000001,1e10)'",
    "'[1999-12-31 23:59:59.999999,2000-01-01)'",
    "'[1969-12-31 23:59:59.5+00,)'",
    "'[infinity,infinity]'",
    "NULL",
    "B'11111111'",
    "B'0000000000000001'",
    "'simple'",
    "'(-1.5e300,3.25)'",
    `'${Array.from({ length: 30 }, (_, i) => `key${i}=>v${i}`).join(", ")}'`,
  ]),
  row([
    "5",
    "'-0.01'",
    "'::1'",
    "'::/0'",
    "NULL",
    "NULL",
    "NULL",
    "NULL",
    "NULL",
    "NULL",
    "NULL",
    "NULL",
    "NULL",
    "NULL",
  ]),
];
const CHANGES = [
  `INSERT INTO kinds (${NAMES}) VALUES ${ROWS.map((r) => r.replace(/^\((\d+)/, (_, id) => `(${Number(id) + 100}`)).join(", ")}`,
  "UPDATE kinds SET cash = '0.99', ip = '127.0.0.1', ci = 'UPDATED', rn = '[3,4)' WHERE id = 1",
  "UPDATE kinds SET cash = NULL, mac = NULL, path = 'x.y.z', vb = B'1', pt = '(2,3)' WHERE id = 4",
  "DELETE FROM kinds WHERE id = 3",
  "INSERT INTO kinds (id, ci) VALUES (999, 'LAST')",
];
const isLast = (e: Event) => (e.value as Json | null)?.payload?.after?.ci === "LAST";

const MODES = ["precise", "double", "string"] as const;
const labelOf = (mode: string) => `types_${mode}`;
const prefixOf = (side: Side, mode: string) => sideName(side, labelOf(mode));
const topicOf = (side: Side, mode: string) => `${prefixOf(side, mode)}.public.kinds`;

describe(`PostgreSQL CDC column types, as Debezium ${DEBEZIUM_VERSION}'s`, () => {
  let sides: SideBySide;

  beforeAll(async () => {
    sides = await startSideBySide({
      prepare(pg) {
        pg.psql(
          "CREATE EXTENSION IF NOT EXISTS citext; CREATE EXTENSION IF NOT EXISTS ltree; CREATE EXTENSION IF NOT EXISTS hstore",
        );
        pg.psql(`CREATE TABLE kinds (${COLUMNS.join(", ")})`);
        pg.psql("ALTER TABLE kinds REPLICA IDENTITY FULL");
        pg.psql(`INSERT INTO kinds (${NAMES}) VALUES ${ROWS.join(", ")}`);
      },
    });
  }, 480_000);
  afterAll(() => sides?.stop(), 60_000);

  test("money, network addresses, ranges, citext, ltree, bit strings, tsvector, point and hstore are Debezium's, snapshot and stream", async () => {
    for (const mode of MODES)
      await sides.createBoth(labelOf(mode), { "table.include.list": "public.kinds", "decimal.handling.mode": mode });
    const snapshotDone = (all: Event[]) => (all.at(-1)!.value as Json | null)?.payload?.source?.snapshot === "last";
    for (const mode of MODES)
      for (const side of SIDES) await sides.eventsUntil(topicOf(side, mode), "the snapshot", snapshotDone);
    for (const change of CHANGES) sides.pg.psql(change);

    const report: string[] = [];
    for (const mode of MODES) {
      const all: Event[][] = [];
      for (const side of SIDES) {
        const events = await sides.eventsUntil(topicOf(side, mode), "the last change", (es) => isLast(es.at(-1)!));
        await sides.dump(prefixOf(side, mode), events);
        all.push(events);
      }
      const [debezium, sluice] = all as [Event[], Event[]];
      const ops = (es: Event[]) => es.map((e) => (e.value as Json | null)?.payload.op ?? "tombstone");
      expect(ops(sluice), mode).toEqual(ops(debezium));
      for (let i = 0; i < debezium.length; i++) {
        const [d, s] = [
          normalizeChange(debezium[i]!, "debezium", prefixOf("debezium", mode)),
          normalizeChange(sluice[i]!, "sluice", prefixOf("sluice", mode)),
        ];
        report.push(...differences(d, s).map((diff) => `${mode} record ${i}${diff}`));
      }
    }
    expect(report).toEqual([]);
  }, 300_000);
});
