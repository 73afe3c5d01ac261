// The declarations of an original's settings Sluice does not implement (Setting.unsupported): found by
// name, alias or family pattern, refused unless harmless, kept out of the parsed values and the
// configuration reference, and named in start-up errors.
import { describe, expect, test } from "bun:test";
import {
  ignored,
  refused,
  settingsReference,
  SettingsDefinition,
  unsupportedAll,
  UnsupportedSettingsError,
  unsupportedReference,
} from "#src/platform/settings.ts";

const def = new SettingsDefinition(
  [
    { name: "topic", type: "string", default: "t", importance: "high", doc: "Topic." },
    refused("mask", "no masking", ["off", ""]),
    ignored("pool.size", "no pool"),
    { ...refused("column.mask.<n>", "no masking"), pattern: /^column\.mask\.\d+$/ },
    ...unsupportedAll("ignored", [["metrics.tag.<name>", /^metrics\.tag\./]], "no reporters"),
    {
      name: "listed",
      type: "string",
      default: "a",
      importance: "low",
      doc: "Shown.",
      unsupported: { kind: "refused", why: "not here", harmless: ["a"], listed: true },
    },
  ],
  ["client."],
);

describe("unsupported settings", () => {
  test("are found by name and by family, and are not unknown", () => {
    expect(def.find("column.mask.8")?.name).toBe("column.mask.<n>");
    expect(def.find("metrics.tag.env")?.name).toBe("metrics.tag.<name>");
    expect(def.find("column.mask.x")).toBeUndefined();
    expect(def.parse({ mask: "on", "pool.size": "3", "column.mask.8": "a.b" }).unknown).toEqual([]);
  });

  test("refused unless given a harmless value (ignoring case and spaces); ignored ones are listed apart", () => {
    const { refused: r, ignored: i } = def.unsupportedIn({
      mask: " OFF ",
      "column.mask.8": "a.b",
      "pool.size": "3",
      topic: "x",
      listed: "b",
    });
    expect(r.map((u) => u.name)).toEqual(["column.mask.8", "listed"]);
    expect(i.map((u) => u.name)).toEqual(["pool.size"]);
    expect(def.unsupportedIn({ mask: "" }).refused).toEqual([]);
  });

  test("only listed ones are parsed and shown with the implemented settings", () => {
    expect(def.settings.map((s) => s.name)).toEqual(["topic", "listed"]);
    expect(def.parse({}).values.string("listed")).toBe("a");
    expect(() => def.parse({}).values.string("mask")).toThrow("not declared");
    expect(settingsReference(def)).not.toContain("mask");
    expect(def.declared().map((s) => s.name)).toEqual([
      "topic",
      "listed",
      "mask",
      "pool.size",
      "column.mask.<n>",
      "metrics.tag.<name>",
    ]);
  });

  test("a start-up error names each refused setting with its value and reason", () => {
    const error = new UnsupportedSettingsError(def.unsupportedIn({ mask: "on", "column.mask.3": "x" }).refused);
    expect(error.message).toBe(
      "2 settings not supported by Sluice:\n  mask=on: mask is not supported by Sluice: no masking (set off, leave it empty or remove it)\n  column.mask.3=x: column.mask.3 is not supported by Sluice: no masking (remove it)",
    );
  });

  test("the docs table says what is refused, what is accepted and what has no effect", () => {
    expect(unsupportedReference(def).split("\n")).toContain(
      "| `mask` | refused (accepted: `off`, empty) | no masking |",
    );
    expect(unsupportedReference(def).split("\n")).toContain("| `pool.size` | no effect (warning) | no pool |");
  });
});
