// /connectors/{connector}/tasks: a connector's tasks, their states and restarts.
import { Elysia } from "elysia";
import { documented } from "../../../platform/openapi.ts";
import { connectErrors } from "../rest-errors.ts";
import type { Herder } from "../herder/herder.ts";
import { connectorNotFound, fails, noBody, ok, TaskConfigs, TaskState } from "./openapi.ts";
import { empty, json } from "./respond.ts";

/** A task's number; anything else names no resource, as Jersey's int path parameter does. */
function taskIndex(value: string): number {
  if (!/^\d+$/.test(value)) throw connectErrors.notFound("HTTP 404 Not Found");
  return Number(value);
}

export function taskRoutes(herder: Herder) {
  return new Elysia()
    .get(
      "/connectors/:connector/tasks",
      ({ params }) => json(herder.taskConfigs(params.connector)),
      documented({
        summary: "A connector's tasks and their configs",
        responses: { 200: ok("Task configs", TaskConfigs), 404: connectorNotFound },
      }),
    )
    .get(
      "/connectors/:connector/tasks/:task/status",
      async ({ params }) => json(await herder.taskStatus(params.connector, taskIndex(params.task))),
      documented({
        summary: "A task's state",
        responses: { 200: ok("The task's state", TaskState), 404: fails("Connector or task not found") },
      }),
    )
    .post(
      "/connectors/:connector/tasks/:task/restart",
      async ({ params }) => {
        await herder.restartTask(params.connector, taskIndex(params.task));
        return empty(204);
      },
      documented({
        summary: "Restarts a task",
        responses: { 204: noBody("Restarted"), 404: fails("Connector or task not found") },
      }),
    );
}
