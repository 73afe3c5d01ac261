import { expect, test } from "bun:test";
import fc from "fast-check";
import { lineDiff, sideBySide } from "#src/console/diff.ts";

test("a field added in the middle is an added block facing nothing", () => {
  const rows = sideBySide("{\n  a\n}", "{\n  a,\n  b\n}");
  expect(rows.map((r) => r.kind)).toEqual(["same", "changed", "added", "same"]);
  expect(rows[1]).toEqual({ kind: "changed", left: { n: 2, text: "  a" }, right: { n: 2, text: "  a," } });
  expect(rows[2]!.right).toEqual({ n: 3, text: "  b" });
});

test("equal texts have no differences", () => {
  expect(sideBySide("x\ny", "x\ny").every((r) => r.kind === "same")).toBe(true);
});

test("the edit script rebuilds both sides and keeps a longest common part", () => {
  const lines = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 });
  fc.assert(
    fc.property(lines, lines, (a, b) => {
      const ops = lineDiff(a, b);
      expect(ops.filter((o) => o.kind !== "added").map((o) => a[o.a!])).toEqual(a);
      expect(ops.filter((o) => o.kind !== "removed").map((o) => b[o.b!])).toEqual(b);
      for (const o of ops) if (o.kind === "same") expect(a[o.a!]).toBe(b[o.b!]);
    }),
  );
});
