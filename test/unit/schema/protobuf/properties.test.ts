import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { schemaDifferences } from "#src/schema/protobuf/compatibility.ts";
import { decodeMessageIndexes, encodeMessageIndexes, protobufFormat } from "#src/schema/protobuf/index.ts";
import { parse } from "./helpers.ts";

const GROUPS = [
  ["int32", "int64", "uint32", "uint64", "bool"],
  ["sint32", "sint64"],
  ["string", "bytes"],
  ["fixed32", "sfixed32"],
  ["fixed64", "sfixed64"],
  ["float"],
  ["double"],
];
const SCALARS = GROUPS.flat();

interface Field {
  label: "" | "repeated ";
  type: string;
  name: string;
  tag: number;
}

/** A message with distinct field names and tags, fields in random order. */
const fieldsArb: fc.Arbitrary<Field[]> = fc
  .uniqueArray(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 12 })
  .chain((tags) =>
    fc.tuple(
      fc.constant(tags),
      fc.array(fc.constantFrom(...SCALARS), { minLength: tags.length, maxLength: tags.length }),
      fc.array(fc.boolean(), { minLength: tags.length, maxLength: tags.length }),
    ),
  )
  .map(([tags, types, repeated]) =>
    tags.map((tag, i) => ({ label: repeated[i] ? "repeated " : "", type: types[i], name: `f_${tag}`, tag }) as Field),
  );

const render = (fields: readonly Field[], compact = false): string => {
  const sep = compact ? " " : "\n  ";
  return `syntax = "proto3";${compact ? "" : "\n"}package p;\nmessage M {${fields.map((f) => `${sep}${f.label}${f.type} ${f.name} = ${f.tag};`).join("")}\n}\n`;
};

describe("properties", () => {
  test("message indexes round-trip", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -2147483648, max: 2147483647 }), { maxLength: 20 }),
        fc.nat({ max: 8 }),
        (indexes, offset) => {
          const encoded = encodeMessageIndexes(indexes);
          const framed = new Uint8Array(offset + encoded.length);
          framed.set(encoded, offset);
          const { indexes: decoded, next } = decodeMessageIndexes(framed, offset);
          expect(decoded).toEqual(indexes.length === 0 ? [0] : indexes);
          expect(next).toBe(framed.length);
        },
      ),
    );
  });

  test("a random message is compatible with itself, and its canonical form is stable", () => {
    fc.assert(
      fc.property(fieldsArb, (fields) => {
        const a = parse(render(fields));
        const b = parse(render(fields, true));
        expect(schemaDifferences(a.files, b.files)).toEqual([]);
        expect(a.canonical).toBe(b.canonical);
        expect(parse(a.canonical).canonical).toBe(a.canonical);
        expect(protobufFormat.readProblems(a, b)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  test("adding a field is backward and forward compatible", () => {
    fc.assert(
      fc.property(fieldsArb, fc.constantFrom(...SCALARS), fc.integer({ min: 2001, max: 5000 }), (fields, type, tag) => {
        const old = parse(render(fields));
        const next = parse(render([...fields, { label: "", type, name: `added_${tag}`, tag }]));
        expect(protobufFormat.readProblems(next, old, "reader")).toEqual([]);
        expect(protobufFormat.readProblems(old, next, "writer")).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  test("changing a field's scalar kind across groups is incompatible both ways", () => {
    const otherGroup = fc
      .tuple(fc.nat({ max: GROUPS.length - 1 }), fc.nat({ max: GROUPS.length - 2 }))
      .chain(([g, shift]) => {
        const to = (g + 1 + shift) % GROUPS.length;
        return fc.tuple(fc.constantFrom(...GROUPS[g]), fc.constantFrom(...GROUPS[to]));
      });
    fc.assert(
      fc.property(fieldsArb, fc.nat(), otherGroup, (fields, pick, [from, to]) => {
        const i = pick % fields.length;
        const before = fields.map((f, j) => (j === i ? { ...f, type: from } : f));
        const after = fields.map((f, j) => (j === i ? { ...f, type: to } : f));
        const old = parse(render(before));
        const next = parse(render(after));
        const path = `#/M/${fields[i].tag}`;
        const expected = [expect.objectContaining({ type: "FIELD_SCALAR_KIND_CHANGED", path })];
        expect(protobufFormat.readProblems(next, old, "reader")).toEqual(expected);
        expect(protobufFormat.readProblems(old, next, "writer")).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });
});
