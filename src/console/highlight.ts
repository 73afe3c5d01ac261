// Syntax colour for schemas: JSON (Avro, JSON Schema) and Protobuf, as tokens per line.

export type TokenKind = "key" | "string" | "number" | "keyword" | "punct" | "comment" | "type" | "plain";

export interface Token {
  kind: TokenKind;
  text: string;
}

const JSON_TOKEN =
  /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b|([{}[\],:])|(\s+)|(.)/g;

const PROTO_KEYWORDS = new Set(
  "syntax edition package import public weak option message enum oneof repeated optional required map service rpc returns stream reserved extend extensions to max".split(
    " ",
  ),
);
const PROTO_TYPES = new Set(
  "double float int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 sfixed32 sfixed64 bool string bytes".split(" "),
);
const PROTO_TOKEN =
  /(\/\/.*$)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|\b(\d+(?:\.\d+)?)\b|([A-Za-z_][\w.]*)|([{}()[\];=<>,])|(\s+)|(.)/g;

function jsonLine(line: string): Token[] {
  const out: Token[] = [];
  for (const m of line.matchAll(JSON_TOKEN)) {
    if (m[1] !== undefined) {
      out.push({ kind: m[2] !== undefined ? "key" : "string", text: m[1] });
      if (m[2] !== undefined) out.push({ kind: "punct", text: m[2] });
    } else if (m[3] !== undefined) out.push({ kind: "number", text: m[3] });
    else if (m[4] !== undefined) out.push({ kind: "keyword", text: m[4] });
    else if (m[5] !== undefined) out.push({ kind: "punct", text: m[5] });
    else out.push({ kind: "plain", text: m[0] });
  }
  return out;
}

function protoLine(line: string, inComment: { open: boolean }): Token[] {
  const out: Token[] = [];
  let rest = line;
  // Block comments may span lines: what is inside is one comment token per line.
  if (inComment.open) {
    const end = rest.indexOf("*/");
    if (end < 0) return [{ kind: "comment", text: rest }];
    out.push({ kind: "comment", text: rest.slice(0, end + 2) });
    rest = rest.slice(end + 2);
    inComment.open = false;
  }
  const start = rest.indexOf("/*");
  const tail = start >= 0 && !rest.slice(0, start).includes("//") ? rest.slice(start) : "";
  if (tail) rest = rest.slice(0, start);
  for (const m of rest.matchAll(PROTO_TOKEN)) {
    if (m[1] !== undefined) out.push({ kind: "comment", text: m[1] });
    else if (m[2] !== undefined) out.push({ kind: "string", text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: "number", text: m[3] });
    else if (m[4] !== undefined)
      out.push({ kind: PROTO_KEYWORDS.has(m[4]) ? "keyword" : PROTO_TYPES.has(m[4]) ? "type" : "plain", text: m[4] });
    else if (m[5] !== undefined) out.push({ kind: "punct", text: m[5] });
    else out.push({ kind: "plain", text: m[0] });
  }
  if (tail) {
    const end = tail.indexOf("*/", 2);
    if (end < 0) {
      inComment.open = true;
      out.push({ kind: "comment", text: tail });
    } else {
      out.push({ kind: "comment", text: tail.slice(0, end + 2) }, ...protoLine(tail.slice(end + 2), inComment));
    }
  }
  return out;
}

/** Tokens of each line of `text`; `format` is the registry's schemaType (AVRO when absent). */
export function highlight(text: string, format: string | undefined): Token[][] {
  const lines = text.split("\n");
  if ((format ?? "AVRO").toUpperCase() === "PROTOBUF") {
    const state = { open: false };
    return lines.map((l) => protoLine(l, state));
  }
  return lines.map(jsonLine);
}
