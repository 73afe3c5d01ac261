import { expect, test } from "bun:test";
import { suggestedFixes } from "#src/console/compat-fixes.ts";

const missingDefault =
  "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'note' at path '/fields/1' in the new schema has no default value and is missing in the old schema', additionalInfo:'note'}";
const level = (l: string) => `{validateFields: 'false', compatibility: '${l}'}`;

test("a new field without a default under BACKWARD: add a default, or FORWARD takes it", () => {
  expect(suggestedFixes([missingDefault, "{oldSchemaVersion: 1}", level("BACKWARD")])).toEqual([
    'Give field note a default value (for an optional field: type ["null", …] with "default": null).',
    "Or: the compatibility level FORWARD would accept it as it is.",
  ]);
});

test("under FORWARD the field is kept, or BACKWARD takes it; under FULL only the change", () => {
  expect(suggestedFixes([missingDefault, level("FORWARD")])).toEqual([
    "Keep field note: readers of the current version need it, as it has no default there.",
    "Or: the compatibility level BACKWARD would accept it as it is.",
  ]);
  expect(suggestedFixes([missingDefault, level("FULL")])).toEqual([
    'Give field note a default value (for an optional field: type ["null", …] with "default": null).',
  ]);
});

test("a changed type names the types and the promotions; unknown reasons suggest nothing", () => {
  const mismatch =
    "{errorType:'TYPE_MISMATCH', description:'The type (path '/fields/0/type') of a field in the new schema does not match with the old schema', additionalInfo:'reader type: STRING not compatible with writer type: LONG'}";
  expect(suggestedFixes([mismatch, level("FULL")])).toEqual([
    "Keep the type the field had (reader type: STRING not compatible with writer type: LONG), or one Avro promotes it to: int → long → float → double, string ↔ bytes.",
  ]);
  expect(
    suggestedFixes(["{errorType:'FIELD_KIND_CHANGED', description:'The kind of field 'name' has changed'}"]),
  ).toEqual([]);
});
