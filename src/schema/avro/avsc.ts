// A parsed Avro schema as an avsc Type, the runtime type the serializers encode and decode with, built
// on first use. It is fed the resolved tree (named types defined before use, fully qualified
// references), since avsc lacks some Java behaviours (forward references, null-namespace fallback,
// identical re-definitions). Defaults that Java accepts but avsc cannot represent (a union default for
// a later branch, longs beyond 2^53, an enum default outside the symbols, a fixed default of the wrong
// length) are left out of the avsc type.
import { Type } from "avsc";
import { InvalidSchemaError } from "../format.ts";
import { JsonNumber, isJsonObject, type JsonValue } from "./json.ts";
import { isNamed, type AvroName, type AvroNode } from "./model.ts";

type AvscSchema = Parameters<typeof Type.forSchema>[0];

const AVSC_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function toAvscType(refRoots: readonly AvroNode[], root: AvroNode): Type {
  const registry: Record<string, Type> = {};
  const defined = new Set<string>();
  try {
    for (const r of refRoots) {
      if (isNamed(r) && defined.has(r.name.full)) continue;
      Type.forSchema(toAvsc(r, defined) as AvscSchema, { registry });
    }
    return Type.forSchema(toAvsc(root, defined) as AvscSchema, { registry });
  } catch (e) {
    throw new InvalidSchemaError(e instanceof Error ? e.message : String(e));
  }
}

function avscRef(n: AvroName): string {
  return n.space === null ? `.${n.name}` : n.full;
}

function avscAliases(aliases: readonly AvroName[]): string[] {
  return aliases.filter((a) => a.full.split(".").every((p) => AVSC_NAME.test(p))).map(avscRef);
}

function toAvsc(n: AvroNode, defined: Set<string>): unknown {
  switch (n.type) {
    case "record":
    case "enum":
    case "fixed": {
      if (defined.has(n.name.full)) return avscRef(n.name);
      defined.add(n.name.full);
      const base = { name: n.name.name, namespace: n.name.space ?? "", aliases: avscAliases(n.aliases) };
      if (n.type === "enum") {
        return {
          type: "enum",
          ...base,
          symbols: [...n.symbols],
          ...(n.enumDefault !== null ? { default: n.enumDefault } : {}),
        };
      }
      if (n.type === "fixed") return { type: "fixed", ...base, size: n.size };
      return {
        type: n.isError ? "error" : "record",
        ...base,
        fields: n.fields.map((f) => {
          const out: Record<string, unknown> = { name: f.name, type: toAvsc(f.type, defined) };
          const d = f.defaultValue === undefined ? undefined : avscDefault(f.defaultValue, f.type);
          if (d !== undefined) out.default = d;
          if (f.order !== "ascending") out.order = f.order;
          const aliases = f.aliases.filter((a) => AVSC_NAME.test(a));
          if (aliases.length > 0) out.aliases = aliases;
          return out;
        }),
      };
    }
    case "array":
      return { type: "array", items: toAvsc(n.items, defined) };
    case "map":
      return { type: "map", values: toAvsc(n.values, defined) };
    case "union":
      return n.branches.map((b) => toAvsc(b, defined));
    default:
      return n.type;
  }
}

/** A Java-valid default as avsc wants it, or undefined when avsc cannot represent it. */
function avscDefault(v: JsonValue, t: AvroNode): unknown {
  switch (t.type) {
    case "union":
      return t.branches.length > 0 ? avscDefault(v, t.branches[0]) : undefined;
    case "null":
      return v === null ? null : undefined;
    case "boolean":
      return typeof v === "boolean" ? v : undefined;
    case "int":
    case "long":
      return v instanceof JsonNumber && v.integer !== null && Number.isSafeInteger(v.value) ? v.value : undefined;
    case "float":
    case "double":
      return v instanceof JsonNumber ? v.value : undefined;
    case "string":
    case "bytes":
      return typeof v === "string" ? v : undefined;
    case "enum":
      return typeof v === "string" && t.symbols.includes(v) ? v : undefined;
    case "fixed":
      return typeof v === "string" && v.length === t.size ? v : undefined;
    case "array": {
      if (!Array.isArray(v)) return undefined;
      const out = v.map((e) => avscDefault(e, t.items));
      return out.every((e) => e !== undefined) ? out : undefined;
    }
    case "map": {
      if (!isJsonObject(v)) return undefined;
      const out: Record<string, unknown> = {};
      for (const [k, e] of v) {
        const c = avscDefault(e, t.values);
        if (c === undefined) return undefined;
        Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case "record": {
      if (!isJsonObject(v)) return undefined;
      const out: Record<string, unknown> = {};
      for (const f of t.fields) {
        const raw = v.has(f.name) ? v.get(f.name) : f.defaultValue;
        if (raw === undefined) return undefined;
        const c = avscDefault(raw, f.type);
        if (c === undefined) return undefined;
        out[f.name] = c;
      }
      return out;
    }
  }
}
