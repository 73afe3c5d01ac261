// README.md and docs/*.md as a reader follows them: every relative link reaches a file (and its anchor a
// heading there), every `sluice …` command they show is one the CLI accepts, with flags its --help lists,
// and every `npm run …` a script of package.json.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { COMMANDS, commandHelp } from "#src/usage.ts";

const root = join(import.meta.dir, "..", "..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f)),
];
const text = (page: string) => readFileSync(join(root, page), "utf8");

/** The page without its fenced code blocks, whose `[x](y)` and `# …` are not links or headings. */
const prose = (markdown: string) => markdown.replace(/^ *```[\s\S]*?^ *```/gm, "");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return result;
}

/** Each relative link of a page that leads nowhere, as `page: target`. */
function deadLinks(page: string): string[] {
  const dead: string[] = [];
  for (const [, target] of prose(text(page)).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    const [path, anchor] = target!.split("#") as [string, string | undefined];
    const file = path === "" ? join(root, page) : join(root, dirname(page), path);
    if (!existsSync(file)) dead.push(`${page}: ${target}`);
    else if (anchor !== undefined && file.endsWith(".md") && !anchors(readFileSync(file, "utf8")).has(anchor))
      dead.push(`${page}: ${target}`);
  }
  return dead;
}

/** The `sluice …` commands of a page: in code spans and code blocks, a `\` continuation joined. */
function commands(markdown: string): string[] {
  const code = [...markdown.matchAll(/^ *```[^\n]*\n([\s\S]*?)^ *```/gm)].flatMap(([, block]) =>
    block!.replace(/\\\n/g, " ").split("\n"),
  );
  const spans = [...prose(markdown).matchAll(/`([^`]+)`/g)].map(([, span]) => span!.replace(/\n/g, " "));
  return [...code, ...spans].flatMap((line) =>
    [...line.matchAll(/(?:^|[\s(])(?:dist\/)?sluice( [a-z<-][^#|]*)/g)].map(([, rest]) => `sluice${rest!.trimEnd()}`),
  );
}

/** Why the CLI would not accept `command` as written, or nothing. */
function refusal(command: string): string | undefined {
  const [, name, ...args] = command.split(/\s+/);
  if (name === undefined || name.startsWith("<")) return undefined;
  if (name.startsWith("-"))
    return ["--help", "--version"].includes(name) ? undefined : `${command}: sluice takes no ${name}`;
  if (!(name in COMMANDS)) return `${command}: no command ${name} (sluice --help)`;
  const help = commandHelp(name);
  for (const flag of args.filter((a) => a.startsWith("--"))) {
    const [flagName] = flag.split("=") as [string];
    if (
      flag.includes("=") ? help.includes("--<setting>=<value>") : flagName === "--help" || help.includes(`${flagName} `)
    )
      continue;
    return `${command}: sluice ${name} --help lists no ${flagName}`;
  }
  return undefined;
}

const scripts = Object.keys((JSON.parse(text("package.json")) as { scripts: Record<string, string> }).scripts);

describe("the docs", () => {
  test("README links every page in docs/", () => {
    const linked = new Set([...text("README.md").matchAll(/\]\(docs\/([^)#]+\.md)/g)].map(([, page]) => page));
    expect(
      pages
        .filter((p) => p !== "README.md")
        .map((p) => relative("docs", p))
        .filter((p) => !linked.has(p)),
    ).toEqual([]);
  });

  test.each(pages)("every relative link and anchor in %s leads somewhere", (page) => {
    expect(deadLinks(page)).toEqual([]);
  });

  test.each(pages)("every sluice command in %s is one the CLI accepts", (page) => {
    expect(
      commands(text(page))
        .map(refusal)
        .filter((r) => r !== undefined),
    ).toEqual([]);
  });

  test.each(pages)("every npm run script in %s is one package.json has", (page) => {
    const named = [...text(page).matchAll(/\bnpm run ([\w:-]+)/g)].map(([, script]) => script!);
    expect(named.filter((script) => !scripts.includes(script))).toEqual([]);
  });

  test("the checks catch a dead link, a dead anchor, an unknown command and an unknown flag", () => {
    expect(anchors("# A `dev` heading (x)\n## Twice\n## Twice")).toEqual(
      new Set(["a-dev-heading-x", "twice", "twice-1"]),
    );
    expect(refusal("sluice registry --data-dir d --kafkastore.topic=_schemas")).toBeUndefined();
    expect(refusal("sluice serve")).toContain("no command serve");
    expect(refusal("sluice dev --listeners http://:8081")).toContain("--help lists no --listeners");
    expect(refusal("sluice hash-password --data-dir=x")).toContain("--help lists no --data-dir");
    expect(commands("`docker build -t sluice .`")).toEqual([]);
    expect(
      commands("run `dist/sluice dev --data-dir d` or\n```sh\nsluice registry \\\n  --bootstrap-servers k:9092\n```\n"),
    ).toEqual(["sluice registry    --bootstrap-servers k:9092", "sluice dev --data-dir d"]);
  });
});
