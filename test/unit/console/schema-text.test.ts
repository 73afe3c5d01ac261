import { expect, test } from "bun:test";
import { formatSchema, placeReasons, pointerLines, readMessage } from "#src/console/schema-text.ts";

const draft = formatSchema(
  '{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"x","type":"int"}]}',
);

test("JSON schemas are indented, Protobuf kept as written, broken JSON kept", () => {
  expect(draft.split("\n")[1]).toBe('  "type": "record",');
  expect(formatSchema("message M {}", "PROTOBUF")).toBe("message M {}");
  expect(formatSchema("{oops")).toBe("{oops");
});

test("JSON pointers to the lines their members start on", () => {
  const lines = pointerLines(draft);
  expect(lines.get("")).toBe(1);
  expect(lines.get("/fields")).toBe(4);
  expect(lines.get("/fields/0")).toBe(5);
  expect(lines.get("/fields/0/type")).toBe(7);
  expect(lines.get("/fields/1/name")).toBe(10);
});

test("Confluent's verbose messages: reasons on their lines, the rest as context", () => {
  const messages = [
    "{errorType:'TYPE_MISMATCH', description:'The type (path '/fields/0/type') of a field in the new schema does not match with the old schema', additionalInfo:'reader type: STRING not compatible with writer type: LONG'}",
    "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'x' at path '/fields/1' in the new schema has no default value and is missing in the old schema', additionalInfo:'x'}",
    "{oldSchemaVersion: 2}",
  ];
  const { lines, context } = placeReasons(messages, draft);
  expect(lines.get(7)).toEqual([
    "TYPE_MISMATCH: The type (path '/fields/0/type') of a field in the new schema does not match with the old schema",
  ]);
  expect(lines.get(9)![0]).toStartWith("READER_FIELD_MISSING_DEFAULT_VALUE: The field 'x'");
  expect(context).toEqual(["oldSchemaVersion: 2"]);
  expect(readMessage("{validateFields: 'false', compatibility: 'BACKWARD'}")).toEqual({
    reason: false,
    text: "validateFields: 'false', compatibility: 'BACKWARD'",
  });
});

test("a reason naming a Protobuf field is placed on the field's line; one naming nothing under 0", () => {
  const proto = 'syntax = "proto3";\nmessage M {\n  string name = 1;\n}';
  const { lines } = placeReasons(
    [
      "{errorType:'FIELD_KIND_CHANGED', description:'The kind of field 'name' has changed'}",
      "{errorType:'X', description:'Something else'}",
    ],
    proto,
  );
  expect(lines.get(3)).toHaveLength(1);
  expect(lines.get(0)).toEqual(["X: Something else"]);
});
