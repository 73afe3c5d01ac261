import { expect, test } from "bun:test";
import { highlight } from "#src/console/highlight.ts";

const kinds = (line: { kind: string; text: string }[]) =>
  line.filter((t) => t.text.trim()).map((t) => `${t.kind}:${t.text}`);

test("JSON: keys, strings, numbers and keywords", () => {
  expect(kinds(highlight('  "name": "id", "size": 16, "x": null', "AVRO")[0]!)).toEqual([
    'key:"name"',
    "punct::",
    'string:"id"',
    "punct:,",
    'key:"size"',
    "punct::",
    "number:16",
    "punct:,",
    'key:"x"',
    "punct::",
    "keyword:null",
  ]);
});

test("Protobuf: keywords, scalar types, comments across lines; every character kept", () => {
  const text = 'syntax = "proto3";\n/* a\n b */ message M {\n  int32 id = 1; // the id\n}';
  const lines = highlight(text, "PROTOBUF");
  expect(lines.map((l) => l.map((t) => t.text).join(""))).toEqual(text.split("\n"));
  expect(kinds(lines[0]!)).toEqual(["keyword:syntax", "punct:=", 'string:"proto3"', "punct:;"]);
  expect(kinds(lines[1]!)).toEqual(["comment:/* a"]);
  expect(kinds(lines[2]!)).toEqual(["comment: b */", "keyword:message", "plain:M", "punct:{"]);
  expect(kinds(lines[3]!)).toEqual(["type:int32", "plain:id", "punct:=", "number:1", "punct:;", "comment:// the id"]);
});
