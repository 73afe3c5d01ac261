// The layout's import directions (docs/architecture.md), checked on every file of src/: a module
// imports its own folder and the folders below it, never upward or sideways, and no imports go round
// in a circle.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const root = join(import.meta.dir, "..", "..");
const src = join(root, "src");

/** Each folder (longest match wins) and what it may import besides itself. */
const ALLOWED: [folder: string, mayImport: string[]][] = [
  ["platform", ["jvm"]],
  ["jvm", []],
  ["schema", ["jvm", "platform"]],
  ["broker", ["platform"]],
  ["serde", ["schema", "jvm", "platform"]],
  ["registry", ["schema", "broker", "console-host", "jvm", "platform"]],
  ["connect/api", ["jvm", "platform"]],
  ["connect/converters", ["connect/api", "schema", "serde", "jvm", "platform"]],
  ["connect/transforms", ["connect/api", "jvm", "platform"]],
  // A connector is a plugin: the plugin API, and the converters a plugin may use as a library (Kafka's
  // connect-json), as Confluent's search sink uses JsonConverter.
  ["connectors", ["connect/api", "connect/converters", "jvm", "platform"]],
  ["connect/runtime", ["connect/api", "connect/converters", "connect/transforms", "broker", "schema", "serde", "console-host", "jvm", "platform"]],
  // The web console runs in the browser: it imports nothing of the servers'.
  ["console", []],
  ["console-host", ["platform"]],
  ["catalog.ts", ["connectors", "connect/api", "connect/converters", "connect/transforms", "connect/runtime", "platform"]],
  ["task-thread.ts", ["catalog.ts", "connect/runtime"]],
  ["cli.ts", ["*"]],
  ["usage.ts", ["*"]],
  ["unsupported-settings-doc.ts", ["*"]],
];

function folderOf(file: string): string {
  const path = relative(src, file);
  const match = ALLOWED.map(([folder]) => folder).filter((f) => path === f || path.startsWith(`${f}/`)).sort((a, b) => b.length - a.length)[0];
  if (!match) throw new Error(`${path} is in no folder of docs/architecture.md`);
  // Each connector is a folder of its own: one connector does not import another.
  return match === "connectors" ? path.split("/").slice(0, 2).join("/") : match;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)["'](\.{1,2}\/[^"']+)["']/gm;
const files = sourceFiles(src);
/** Type-only imports: erased at run time, so they may go round (a class and the type of its user). */
const TYPE_ONLY = /^(?:import|export) type [^;]*?from\s*["'](\.{1,2}\/[^"']+)["']/gm;
const targets = (file: string, pattern: RegExp) =>
  [...readFileSync(file, "utf8").matchAll(pattern)].map((m) => normalize(join(dirname(file), m[1]!))).filter((t) => t.startsWith(`${src}/`)); // package.json is outside the layout
const imports = new Map(files.map((file) => [file, targets(file, SPECIFIER)]));
const runtimeImports = new Map(files.map((file) => {
  const rest = [...imports.get(file)!];
  for (const typeOnly of targets(file, TYPE_ONLY)) rest.splice(rest.indexOf(typeOnly), 1);
  return [file, rest];
}));

/** The imports of src/ that go against the allowed directions, as "from → to". */
export function wrongImports(): string[] {
  const wrong: string[] = [];
  for (const [file, targets] of imports) {
    const from = folderOf(file);
    const allowed = ALLOWED.find(([f]) => from === f || from.startsWith(`${f}/`))![1];
    for (const target of targets) {
      const to = folderOf(target);
      const ok = to === from || allowed.includes("*") || allowed.some((a) => to === a || to.startsWith(`${a}/`));
      if (!ok) wrong.push(`${relative(src, file)} → ${relative(src, target)}`);
    }
  }
  return wrong;
}

/** Circles among src/'s files at run time: each as the files going round. */
function circles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const next of runtimeImports.get(file) ?? []) {
      if (state.get(next) === "open") found.push(stack.slice(stack.indexOf(next)).map((f) => relative(src, f)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return found;
}

describe("the layout's import directions", () => {
  test("every file is in a folder of docs/architecture.md", () => {
    expect(() => files.forEach(folderOf)).not.toThrow();
  });

  test("no file imports against the allowed directions", () => {
    expect(wrongImports()).toEqual([]);
  });

  test("no import circles", () => {
    expect(circles()).toEqual([]);
  });

  test("the check sees a wrong import: connectors/ importing connect/runtime", () => {
    const file = join(src, "connectors", "file", "source.ts");
    const saved = imports.get(file)!;
    imports.set(file, [...saved, join(src, "connect", "runtime", "worker", "worker.ts")]);
    try {
      expect(wrongImports()).toEqual(["connectors/file/source.ts → connect/runtime/worker/worker.ts"]);
    } finally {
      imports.set(file, saved);
    }
  });
});
