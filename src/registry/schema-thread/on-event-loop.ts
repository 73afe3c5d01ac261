// The event loop's side of the one worker thread for large schemas. Even linear parsing, printing and comparing of a 4 MiB schema
// takes seconds on one core, and on the event loop that stops every other request; on this thread
// the loop goes on answering reads. Only texts cross (schema-texts.ts), and callers await the answer
// where they would have computed it, so the order of registrations is unchanged. One thread: it
// keeps the parses of a registration's two questions, and big schemas are rare.
import { InvalidSchemaError } from "../../schema/format.ts";
import type { CompatibilityLevel } from "../compatibility.ts";
import type { SchemaText, VersionText } from "./schema-texts.ts";

export type SchemaThreadRequest =
  | { id: number; op: "identity"; args: [SchemaText, boolean] }
  | { id: number; op: "compatibility"; args: [SchemaText, CompatibilityLevel, VersionText[]] };

export type SchemaThreadReply =
  | { id: number; value: string | string[] }
  | { id: number; invalid: string }
  | { id: number; error: string };

interface Pending {
  resolve(value: string | string[]): void;
  reject(error: Error): void;
}

export class SchemaThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  /** identity form (see schema-texts.ts identityForm); rejects with InvalidSchemaError. */
  identityForm(schema: SchemaText, normalize: boolean): Promise<string> {
    return this.call({ id: this.nextId++, op: "identity", args: [schema, normalize] }) as Promise<string>;
  }

  /** See schema-texts.ts compatibilityMessages. */
  compatibilityMessages(candidate: SchemaText, level: CompatibilityLevel, previous: VersionText[]): Promise<string[]> {
    return this.call({ id: this.nextId++, op: "compatibility", args: [candidate, level, previous] }) as Promise<
      string[]
    >;
  }

  private call(request: SchemaThreadRequest): Promise<string | string[]> {
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      this.thread().postMessage(request);
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    // A literal path next to this file: build.ts compiles it into the binary as its own entrypoint.
    const worker = new Worker(new URL("./on-schema-thread.ts", import.meta.url).href);
    worker.unref(); // an idle schema thread does not keep the process alive
    worker.onmessage = (event: MessageEvent<SchemaThreadReply>) => {
      const reply = event.data;
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if ("value" in reply) p.resolve(reply.value);
      else if ("invalid" in reply) p.reject(new InvalidSchemaError(reply.invalid));
      else p.reject(new Error(reply.error));
    };
    worker.onerror = (event) => {
      // The thread died: fail what it was doing; the next call starts a new one.
      const error = new Error(`schema thread failed: ${event.message}`);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
      this.worker = undefined;
    };
    this.worker = worker;
    return worker;
  }
}
