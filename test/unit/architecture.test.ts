// The layout's import directions (docs/architecture.md), checked on every file of src/: a module imports its own
// folder and the folders below it, never upward or sideways, and no imports go round in a circle.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { circles, folderOf, importsOf, wrongImports } from "../fixtures/import-layout.ts";

const src = join(import.meta.dir, "..", "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const files = new Map(
  sourceFiles(src).map((file) => [relative(src, file).split(sep).join("/"), readFileSync(file, "utf8")]),
);
const imports = [...files].flatMap(([path, text]) => importsOf(path, text));

/** A file set in memory: path relative to src/ → text. */
const check = (set: Record<string, string>) =>
  wrongImports(Object.entries(set).flatMap(([path, text]) => importsOf(path, text)));
const circlesOf = (set: Record<string, string>) =>
  circles(Object.entries(set).flatMap(([path, text]) => importsOf(path, text)));

describe("the layout's import directions", () => {
  test("every file is in a folder of docs/architecture.md", () => {
    expect(() => [...files.keys()].forEach(folderOf)).not.toThrow();
  });

  test("no file imports against the allowed directions", () => {
    expect(wrongImports(imports)).toEqual([]);
  });

  test("no import circles", () => {
    expect(circles(imports)).toEqual([]);
  });
});

describe("the check of the import directions", () => {
  test("sees an import upward: connectors/ importing connect/runtime", () => {
    const wrong = check({
      "connectors/file/source.ts": `import { Worker } from "../../connect/runtime/worker/worker.ts";`,
      "connect/runtime/worker/worker.ts": "export class Worker {}",
    });
    expect(wrong).toEqual(["connectors/file/source.ts → connect/runtime/worker/worker.ts"]);
  });

  test("sees one connector importing another", () => {
    expect(check({ "connectors/file/source.ts": `import { sink } from "../jdbc-sink/sink.ts";` })).toEqual([
      "connectors/file/source.ts → connectors/jdbc-sink/sink.ts",
    ]);
  });

  test("counts type-only imports for the directions, in every spelling", () => {
    const set = {
      "jvm/a.ts": `import type { A } from "../platform/a.ts";`,
      "jvm/b.ts": `import { type B } from "../platform/b.ts";`,
      "jvm/c.ts": `import { type C, D } from "../platform/c.ts";`,
      "jvm/d.ts": `export type { E } from "../platform/d.ts";`,
      "jvm/e.ts": `import type F from "../platform/e.ts";`,
      "jvm/f.ts": `import type * as G from "../platform/f.ts";`,
      "jvm/g.ts": `const h = await import("../platform/g.ts");`,
    };
    expect(check(set)).toEqual(
      Object.entries(set).map(([path, text]) => `${path} → platform/${text.match(/platform\/(\w\.ts)/)![1]}`),
    );
  });

  test("tells type-only imports from run-time ones", () => {
    const typeOnly = (text: string) => importsOf("jvm/a.ts", text).map((i) => i.typeOnly);
    expect(typeOnly(`import type { A } from "./b.ts";`)).toEqual([true]);
    expect(typeOnly(`import { type A, type B } from "./b.ts";`)).toEqual([true]);
    expect(typeOnly(`import { type A, B } from "./b.ts";`)).toEqual([false]);
    expect(typeOnly(`import { A } from "./b.ts"; import type { C } from "./b.ts";`)).toEqual([false]);
    expect(typeOnly(`import type { C } from "./b.ts";\nimport { D } from "./c.ts";`)).toEqual([true, false]);
  });

  test("reads only real imports: not those in comments or strings", () => {
    const set = {
      "jvm/a.ts": [
        `// import { A } from "../platform/a.ts";`,
        `/* export { B } from "../platform/b.ts"; */`,
        'const code = `import { C } from "../platform/c.ts"`;',
        `const text = 'await import("../platform/d.ts")';`,
        `const quote = /["']/;`,
      ].join("\n"),
    };
    expect(check(set)).toEqual([]);
  });

  test("a type-only import of one file does not hide a run-time import of another", () => {
    // The former check took type-only imports out of the run-time list by splice(indexOf(…)), which dropped the
    // last import when indexOf found none; the run-time imports are now read on their own.
    const set = {
      "platform/a.ts": `import type { B } from "./b.ts";\nimport { c } from "./c.ts";`,
      "platform/c.ts": `import { a } from "./a.ts";`,
    };
    expect(circlesOf(set)).toEqual([["platform/a.ts", "platform/c.ts"]]);
  });

  test("lets type-only imports go round, not run-time ones", () => {
    expect(
      circlesOf({
        "platform/a.ts": `import type { B } from "./b.ts";`,
        "platform/b.ts": `import { a } from "./a.ts";`,
      }),
    ).toEqual([]);
    expect(
      circlesOf({ "platform/a.ts": `import { b } from "./b.ts";`, "platform/b.ts": `import { a } from "./a.ts";` }),
    ).toEqual([["platform/a.ts", "platform/b.ts"]]);
  });

  test("sees connect/runtime/storage importing connect/runtime/worker", () => {
    expect(
      check({ "connect/runtime/storage/status-store.ts": `import type { Status } from "../worker/worker-task.ts";` }),
    ).toEqual(["connect/runtime/storage/status-store.ts → connect/runtime/worker/worker-task.ts"]);
    expect(
      check({ "connect/runtime/worker/worker.ts": `import { OffsetStore } from "../storage/offset-store.ts";` }),
    ).toEqual([]);
  });

  test("lets only connect/api reach past connect/api/data/index.ts", () => {
    expect(
      check({
        "connect/converters/json.ts": `import { Struct } from "../api/data/struct.ts";\nimport { Schema } from "../api/data/index.ts";`,
        "connectors/file/source.ts": `import { type Schema } from "../../connect/api/data/schema.ts";`,
        "connect/api/sink.ts": `import { Struct } from "./data/struct.ts";`,
        "connect/api/data/index.ts": `export { Struct } from "./struct.ts";`,
      }),
    ).toEqual([
      "connect/converters/json.ts → connect/api/data/struct.ts",
      "connectors/file/source.ts → connect/api/data/schema.ts",
    ]);
  });
});
