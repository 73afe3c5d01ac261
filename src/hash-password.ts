// `sluice hash-password`: a bcrypt hash for the users files of both REST APIs (its text has no comma,
// which the registry's file uses between roles; argon2 hashes and Jetty's forms are accepted too). The
// password is typed at a prompt that does not echo it, or read from stdin, so that it stays out of the
// shell's history; given as an argument it still works, with a warning.
import { UsageError } from "./usage.ts";

export async function hashPassword(args: string[]): Promise<number> {
  let password = args[0];
  if (password !== undefined) {
    console.error(
      "warning: a password on the command line stays in the shell's history; run `sluice hash-password` and type it at the prompt, or give it on stdin",
    );
  } else if (process.stdin.isTTY) {
    const [first, again] = await typedLines(["Password: ", "Again: "]);
    if (first !== again) {
      console.error("The passwords differ; nothing hashed.");
      return 1;
    }
    password = first;
  } else {
    password = (await Bun.stdin.text()).split(/\r?\n/)[0];
  }
  if (!password) throw new UsageError("hash-password", "the password to hash (typed at the prompt or given on stdin)");
  console.log(await Bun.password.hash(password, { algorithm: "bcrypt" }));
  return 0;
}

/** Lines typed at the terminal, one after each question, not echoed; Ctrl-C ends the process as it would have. */
function typedLines(questions: string[]): Promise<string[]> {
  const stdin = process.stdin;
  const lines: string[] = [];
  let text = "";
  let afterReturn = false;
  // Echo is off before the prompt shows: what is typed as soon as it shows is not echoed.
  stdin.setRawMode(true);
  process.stderr.write(questions[0]!);
  stdin.resume();
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      for (const c of chunk.toString("utf8")) {
        const wasReturn = afterReturn;
        afterReturn = c === "\r";
        if (c === "\n" && wasReturn) continue; // \r\n is one Enter
        if (c === "\u0003") {
          stdin.setRawMode(false);
          process.stderr.write("\n");
          process.exit(130);
        }
        if (c !== "\r" && c !== "\n") {
          text = c === "\u007f" || c === "\b" ? [...text].slice(0, -1).join("") : text + c;
          continue;
        }
        lines.push(text);
        text = "";
        process.stderr.write("\n");
        if (lines.length < questions.length) {
          process.stderr.write(questions[lines.length]!);
          continue;
        }
        stdin.off("data", onData);
        stdin.setRawMode(false);
        stdin.pause();
        resolve(lines);
        return;
      }
    };
    stdin.on("data", onData);
  });
}
