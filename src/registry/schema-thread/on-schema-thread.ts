// Entry of the schema thread (started by on-event-loop.ts): answers schema-texts.ts calls by message.
import { InvalidSchemaError } from "../../schema/format.ts";
import { compatibilityMessages, identityForm } from "./schema-texts.ts";
import type { SchemaThreadReply, SchemaThreadRequest } from "./on-event-loop.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<SchemaThreadRequest>) => {
  const request = event.data;
  let reply: SchemaThreadReply;
  try {
    const value = request.op === "identity" ? identityForm(...request.args) : compatibilityMessages(...request.args);
    reply = { id: request.id, value };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    reply = e instanceof InvalidSchemaError ? { id: request.id, invalid: message } : { id: request.id, error: message };
  }
  self.postMessage(reply);
};
