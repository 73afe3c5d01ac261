// `npm install` leaves the work tree as git has it: npm makes every package.json "bin" target
// executable, so git must already hold each one as executable (with the shebang that runs it).
import { expect, test } from "bun:test";
import { spawnSync } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../fixtures/binary.ts";
import pkg from "../../package.json" with { type: "json" };

test.each(Object.entries(pkg.bin))("bin %s (%s) is executable in git and starts with a shebang", (_name, target) => {
  const staged = spawnSync(["git", "ls-files", "-s", "--", target], { cwd: root, stdout: "pipe" }).stdout.toString();
  expect(staged.split(" ")[0]).toBe("100755");
  expect(readFileSync(join(root, target), "utf8")).toStartWith("#!/usr/bin/env ");
});
