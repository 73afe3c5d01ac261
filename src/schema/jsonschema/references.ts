// `$ref` resolution across the schema and the registered schemas it references. Confluent
// registers each reference's text under its reference name, resolved against the root `$id`, and
// also under the bare name (and "./name"); a `$ref` is resolved against the current scope and looked
// up there. `#/$defs/X` also finds a top-level `definitions/X` (Confluent's mergeDefBuckets).
import { isJObject, type JObject, type JValue } from "./json.ts";

export interface Document {
  /** The name or URI the document is known by (null for the schema being parsed). */
  readonly uri: string | null;
  readonly root: JValue;
}

export class UnresolvableRefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnresolvableRefError";
  }
}

/** Whether `s` starts with a URI scheme. */
function hasScheme(s: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(s);
}

function withoutFragment(s: string): string {
  const i = s.indexOf("#");
  return i < 0 ? s : s.slice(0, i);
}

function removeDotSegments(path: string): string {
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === ".") continue;
    if (seg === "..") {
      if (out.length > 1) out.pop();
      continue;
    }
    out.push(seg);
  }
  return out.join("/");
}

/** URI resolution of `ref` against `base` (RFC 3986; relative bases resolved by path merging). */
export function resolveUri(base: string | null, ref: string): string {
  if (base === null || base === "" || hasScheme(ref)) return ref;
  if (ref === "") return withoutFragment(base);
  if (ref.startsWith("#")) return withoutFragment(base) + ref;
  if (hasScheme(base)) {
    try {
      return new URL(ref, base).href;
    } catch {
      return ref;
    }
  }
  if (ref.startsWith("/")) return ref;
  const dir = withoutFragment(base).replace(/[^/]*$/, "");
  return removeDotSegments(dir + ref);
}

function stripDotSlash(s: string): string {
  return s.startsWith("./") ? s.slice(2) : s;
}

/** Evaluates a JSON pointer fragment ("#/a/b" or "/a/b") in `root`; undefined when absent. */
function evaluatePointer(root: JValue, fragment: string): JValue | undefined {
  const pointer = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  const tokens = pointer
    .slice(1)
    .split("/")
    .map((t) => {
      let decoded = t;
      try {
        decoded = decodeURIComponent(t);
      } catch {
        // keep the raw token
      }
      return decoded.replace(/~1/g, "/").replace(/~0/g, "~");
    });
  const found = walk(root, tokens);
  if (found !== undefined || tokens[0] !== "$defs" || !isJObject(root)) return found;
  // mergeDefBuckets: top-level definitions are also visible as $defs (existing $defs entries win).
  const defs = root.get("$defs");
  if (defs !== undefined && !isJObject(defs)) return undefined;
  if (defs !== undefined && tokens.length > 1 && defs.has(tokens[1])) return undefined;
  return walk(root, ["definitions", ...tokens.slice(1)]);
}

function walk(value: JValue, tokens: readonly string[]): JValue | undefined {
  let cur: JValue | undefined = value;
  for (const t of tokens) {
    if (cur === undefined || cur === null) return undefined;
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(t)) return undefined;
      cur = cur[Number(t)];
    } else if (isJObject(cur)) {
      cur = cur.get(t);
    } else {
      return undefined;
    }
  }
  return cur;
}

interface IdTarget {
  readonly doc: Document;
  readonly node: JObject;
  readonly scope: string | null;
}

/** Subschemas carrying an id keyword, by the id's text and by its resolved URI. */
function collectIds(doc: Document, scope: string | null, idKey: string, into: Map<string, IdTarget>): void {
  const visit = (v: JValue, s: string | null): void => {
    if (Array.isArray(v)) {
      for (const e of v) visit(e, s);
      return;
    }
    if (!isJObject(v)) return;
    let inner = s;
    const id = v.get(idKey);
    if (typeof id === "string") {
      inner = resolveUri(s, id);
      for (const key of [id, inner, withoutFragment(inner)])
        if (!into.has(key)) into.set(key, { doc, node: v, scope: inner });
    }
    for (const child of v.values()) visit(child, inner);
  };
  visit(doc.root, scope);
}

export interface ResolvedTarget {
  readonly doc: Document;
  readonly node: JValue;
  /** Resolution scope inside the target (its document URI, or the enclosing `$id`). */
  readonly scope: string | null;
  /** Canonical key of the target, shared by every `$ref` that reaches it. */
  readonly key: string;
}

/** Looks `$ref` values up in the main document, the referenced documents and the bundled meta-schemas. */
export class RefResolver {
  private readonly docs = new Map<string, Document>();
  private readonly ids = new Map<string, IdTarget>();

  constructor(
    readonly main: Document,
    readonly mainScope: string | null,
    referenceTexts: ReadonlyMap<string, JValue>,
    idKey: string,
    private readonly metaSchemas: ReadonlyMap<string, JValue>,
  ) {
    for (const [name, root] of referenceTexts) {
      const doc: Document = { uri: name, root };
      for (const key of [name, stripDotSlash(name), resolveUri(mainScope, name)])
        if (!this.docs.has(key)) this.docs.set(key, doc);
    }
    collectIds(main, null, idKey, this.ids);
    for (const doc of new Set(this.docs.values())) collectIds(doc, doc.uri, idKey, this.ids);
  }

  /** The schema `ref` (found in `doc` with resolution scope `scope`) points to. */
  resolve(ref: string, doc: Document, scope: string | null): ResolvedTarget {
    const absolute = resolveUri(scope, ref);
    const hash = absolute.indexOf("#");
    const fragment = hash < 0 ? "" : absolute.slice(hash);
    const docPart = hash < 0 ? absolute : absolute.slice(0, hash);
    const isPointer = fragment === "" || fragment === "#" || fragment.startsWith("#/");

    // An embedded id ("#foo", or a full URI) names that very subschema.
    const anchored = this.ids.get(absolute) ?? this.ids.get(ref);
    if (anchored !== undefined && !isPointer)
      return { doc: anchored.doc, node: anchored.node, scope: anchored.scope, key: absolute };

    const rawDocPart = withoutFragment(ref);
    if (rawDocPart === "") {
      // Same-document references are evaluated against the root of the containing document.
      return this.pointInto(ref, doc, doc.root, fragment, scope, absolute);
    }
    const registered = this.docs.get(docPart) ?? this.docs.get(stripDotSlash(rawDocPart)) ?? this.docs.get(rawDocPart);
    if (registered !== undefined)
      return this.pointInto(ref, registered, registered.root, fragment, registered.uri, absolute);
    const withId = this.ids.get(docPart);
    if (withId !== undefined) return this.pointInto(ref, withId.doc, withId.node, fragment, withId.scope, absolute);
    const meta = this.metaSchemas.get(docPart);
    if (meta !== undefined) return this.pointInto(ref, { uri: docPart, root: meta }, meta, fragment, docPart, absolute);
    throw new UnresolvableRefError(
      `Unable to resolve $ref '${ref}': no referenced schema is registered under that name`,
    );
  }

  private pointInto(
    ref: string,
    doc: Document,
    root: JValue,
    fragment: string,
    scope: string | null,
    key: string,
  ): ResolvedTarget {
    const node = evaluatePointer(root, fragment);
    if (node === undefined) throw new UnresolvableRefError(`Unable to resolve $ref '${ref}': '${fragment}' not found`);
    return { doc, node, scope, key };
  }
}
